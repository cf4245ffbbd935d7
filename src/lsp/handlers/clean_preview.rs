//! Preview the clean: a code action on an entry whose `exact_edit` the core
//! can make (`report_core::clean_edit`) builds the `WorkspaceEdit` it
//! describes on the target documents, and one source action takes every
//! entry that derives `auto` with the live facts. The edits are made on the
//! editor's texts of the documents it has open, the project's otherwise;
//! their change annotations name the tier, and ask to confirm where the
//! tier is not `auto`, so that the editor previews the change before
//! applying it. Nothing here writes a file: the client applies the edit.

use std::collections::HashMap;
use std::path::Path;

use report_core::clean_edit::{FileChange, Targets, TextEdit};
use report_core::ide::clean::EntryClean;
use report_core::project_checks::WorkspaceFacts;
use report_core::schema::SafetyTier;
use report_core::text::LineIndex;
use ropey::Rope;
use tower_lsp_server::ls_types::{self as lsp, Uri};

use crate::lsp::convert::Positions;
use crate::lsp::session::{ResolvedClientCapabilities, Session, TextAsFile, lock};
use crate::project::overlay;

/// The kind of the action that cleans the entry at the cursor.
pub const CLEAN_ENTRY_KIND: &str = "refactor.clean.report-lsp";
/// The kind of the action that cleans every entry deriving `auto`.
pub const CLEAN_AUTO_KIND: &str = "source.clean.report-lsp";

/// The id of the one annotation of a clean's edit.
const ANNOTATION: &str = "clean";

/// One document the editor has open, as the editor has it.
struct OpenText {
    uri: Uri,
    rope: Rope,
    version: i32,
    /// Its text as its file's facts; None out of sync, when the editor's
    /// text is not known.
    text: Option<TextAsFile>,
}

/// The editor's texts of its open documents other than the report, taken
/// before the query (a rope's clone shares its nodes).
pub struct OpenTexts {
    texts: Vec<OpenText>,
}

impl OpenTexts {
    pub fn of(session: &Session, report: &Uri) -> OpenTexts {
        let mut documents = lock(&session.documents);
        let texts = documents
            .iter_mut()
            .filter(|(uri, _)| *uri != report)
            .map(|(uri, open)| OpenText {
                uri: uri.clone(),
                rope: open.document.rope().clone(),
                version: open.document.version,
                text: open.text_as_file(),
            })
            .collect();
        OpenTexts { texts }
    }
}

/// The open documents under the report's root laid over the project's
/// facts (`project::overlay::Overlay`), with their ropes and versions for
/// the edit.
pub struct Overlay<'a> {
    files: overlay::Overlay,
    texts: &'a [OpenText],
}

impl<'a> Overlay<'a> {
    pub fn new(open: &'a OpenTexts, workspace: &WorkspaceFacts) -> Option<Overlay<'a>> {
        let root = Path::new(workspace.root.as_deref()?);
        let paths = open
            .texts
            .iter()
            .map(|t| Some(t.uri.to_file_path()?.into_owned()));
        let text_of = |i: usize| open.texts[i].text.as_ref().map(TextAsFile::get);
        Some(Overlay {
            files: overlay::Overlay::new(root, paths, text_of, workspace),
            texts: &open.texts,
        })
    }

    pub fn targets<'f>(&'f self, workspace: &'f WorkspaceFacts) -> Targets<'f> {
        self.files.targets(workspace)
    }

    fn open(&self, path: &str) -> Option<&'a OpenText> {
        self.files.open(path).map(|i| &self.texts[i])
    }

    fn uri(&self, path: &str) -> Option<Uri> {
        match self.open(path) {
            Some(open) => Some(open.uri.clone()),
            None => Uri::from_file_path(self.files.path(path)),
        }
    }
}

/// The action that cleans one entry, or None when the client could not
/// show why it is refused.
pub fn entry_action(
    clean: &EntryClean,
    overlay: &Overlay<'_>,
    workspace: &WorkspaceFacts,
    client: ResolvedClientCapabilities,
) -> Option<lsp::CodeAction> {
    let tier = tier_name(clean.tier);
    let title = format!(
        "Clean entries[{}]: {} {} · {tier}",
        clean.index, clean.kind, clean.path
    );
    let edit = clean.edit.as_ref().map_err(Clone::clone).and_then(|edit| {
        if let Some(why) = &edit.held {
            return Err(format!("held: {why}"));
        }
        let nothing =
            |c: &FileChange| matches!(c, FileChange::Edit { edits, .. } if edits.is_empty());
        if edit.changes.iter().all(nothing) {
            return Err(format!(
                "nothing to change: `{}` already reads so",
                clean.path
            ));
        }
        let annotation = lsp::ChangeAnnotation {
            label: format!("{} · {tier}", clean.kind),
            needs_confirmation: Some(clean.tier != Some(SafetyTier::Auto)),
            description: Some(format!(
                "entries[{}] of the report: {}",
                clean.index, clean.path
            )),
        };
        workspace_edit(&edit.changes, overlay, workspace, client, annotation)
    });
    action(title, CLEAN_ENTRY_KIND, edit, client)
}

/// The edit that cleans the entries of `taken`, whose combined changes
/// are `changes`, under one annotation that counts them by kind.
pub fn auto_edit(
    changes: &[FileChange],
    taken: &[EntryClean],
    left_out: usize,
    overlay: &Overlay<'_>,
    workspace: &WorkspaceFacts,
    client: ResolvedClientCapabilities,
) -> Result<lsp::WorkspaceEdit, String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for clean in taken {
        match counts.iter_mut().find(|(kind, _)| *kind == clean.kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((&clean.kind, 1)),
        }
    }
    let counted: Vec<String> = counts
        .iter()
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect();
    let entries = if taken.len() == 1 { "entry" } else { "entries" };
    let left = match left_out {
        0 => String::new(),
        n => format!("; {n} left out, to clean one at a time"),
    };
    let annotation = lsp::ChangeAnnotation {
        label: "clean · auto".into(),
        needs_confirmation: Some(false),
        description: Some(format!(
            "{} {entries} that derive auto: {}{left}",
            taken.len(),
            counted.join(", ")
        )),
    };
    workspace_edit(changes, overlay, workspace, client, annotation)
}

/// A code action with `edit`, or disabled with its reason where the client
/// shows that (and not offered where it does not).
pub fn action(
    title: String,
    kind: &'static str,
    edit: Result<lsp::WorkspaceEdit, String>,
    client: ResolvedClientCapabilities,
) -> Option<lsp::CodeAction> {
    let mut action = lsp::CodeAction {
        title,
        kind: Some(lsp::CodeActionKind::new(kind)),
        ..Default::default()
    };
    match edit {
        Ok(edit) => action.edit = Some(edit),
        Err(reason) if client.disabled_actions => {
            action.disabled = Some(lsp::CodeActionDisabled { reason })
        }
        Err(_) => return None,
    }
    Some(action)
}

pub fn tier_name(tier: Option<SafetyTier>) -> &'static str {
    tier.map_or("tier unknown", |t| t.as_str())
}

/// `changes` as the client takes them: `documentChanges` with the open
/// documents' versions, files created and deleted as resource operations,
/// every change under `annotation` (where the client takes annotations); plain `changes` for a client that takes no
/// `documentChanges`, which then cannot create or delete a file.
fn workspace_edit(
    changes: &[FileChange],
    overlay: &Overlay<'_>,
    workspace: &WorkspaceFacts,
    client: ResolvedClientCapabilities,
    annotation: lsp::ChangeAnnotation,
) -> Result<lsp::WorkspaceEdit, String> {
    let annotated = client.change_annotations;
    let mut operations = Vec::new();
    let mut plain: HashMap<Uri, Vec<lsp::TextEdit>> = HashMap::new();
    for change in changes {
        let path = change.path();
        let uri = overlay
            .uri(path)
            .ok_or_else(|| format!("`{path}` has no file URI under the root"))?;
        let annotation = annotated.then(|| ANNOTATION.to_string());
        let version = overlay.open(path).map(|open| open.version);
        let edits = match change {
            // Nothing to change (a frontmatter key already so): no edit at all.
            FileChange::Edit { edits, .. } if edits.is_empty() => continue,
            FileChange::Edit { edits, .. } => match overlay.open(path) {
                Some(open) => {
                    let positions = Positions::new(&open.rope, client.encoding);
                    edits.iter().map(|e| positions.text_edit(e)).collect()
                }
                // The project's text, held whole: its line starts, not a rope.
                None => {
                    let text = workspace
                        .file(path)
                        .and_then(|f| f.text.as_deref())
                        .ok_or_else(|| format!("`{path}` was not read"))?;
                    let lines = LineIndex::new(text);
                    let positions = Positions::indexed(text, &lines, client.encoding);
                    edits.iter().map(|e| positions.text_edit(e)).collect()
                }
            },
            FileChange::Create { text, .. } => {
                if !client.creates_files {
                    return Err(format!(
                        "the editor cannot create files in an edit, and this one creates `{path}`"
                    ));
                }
                operations.push(lsp::DocumentChangeOperation::Op(lsp::ResourceOp::Create(
                    lsp::CreateFile {
                        uri: uri.clone(),
                        options: Some(lsp::CreateFileOptions {
                            overwrite: Some(false),
                            ignore_if_exists: Some(false),
                        }),
                        annotation_id: annotation.clone(),
                    },
                )));
                let empty = LineIndex::new("");
                let insert = TextEdit::insert(0, text.clone());
                vec![Positions::indexed("", &empty, client.encoding).text_edit(&insert)]
            }
            FileChange::Delete { directory, .. } => {
                if let Some(why) = overlay.files.unsaved_under(path) {
                    return Err(why);
                }
                if !client.deletes_files {
                    return Err(format!(
                        "the editor cannot delete files in an edit, and this one deletes `{path}`"
                    ));
                }
                operations.push(lsp::DocumentChangeOperation::Op(lsp::ResourceOp::Delete(
                    lsp::DeleteFile {
                        uri,
                        options: Some(lsp::DeleteFileOptions {
                            recursive: Some(*directory),
                            ignore_if_not_exists: Some(false),
                        }),
                        annotation_id: annotation,
                    },
                )));
                continue;
            }
        };
        match client.versioned_edits {
            true => operations.push(lsp::DocumentChangeOperation::Edit(lsp::TextDocumentEdit {
                text_document: lsp::OptionalVersionedTextDocumentIdentifier { uri, version },
                edits: edits
                    .into_iter()
                    .map(|text_edit| match &annotation {
                        Some(id) => lsp::OneOf::Right(lsp::AnnotatedTextEdit {
                            text_edit,
                            annotation_id: id.clone(),
                        }),
                        None => lsp::OneOf::Left(text_edit),
                    })
                    .collect(),
            })),
            false => plain.entry(uri).or_default().extend(edits),
        }
    }
    Ok(match client.versioned_edits {
        true => lsp::WorkspaceEdit {
            document_changes: Some(lsp::DocumentChanges::Operations(operations)),
            change_annotations: annotated
                .then(|| HashMap::from([(ANNOTATION.to_string(), annotation)])),
            ..Default::default()
        },
        false => lsp::WorkspaceEdit {
            changes: Some(plain),
            ..Default::default()
        },
    })
}
