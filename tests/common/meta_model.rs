//! Checks JSON against the Language Server Protocol's own definition of its
//! types and messages, the 3.17 meta model (`tests/lsp_meta_model/`, see its
//! README), rather than against types written again by hand: the model is
//! read into the Rust types below, which follow its schema (`metaModel.ts`),
//! and a value is checked by walking the type the model gives.
//!
//! [`check_server_message`] is what the scripted editor (`editor.rs`) asks of
//! every message the server sends.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Map, Value};

/// The method of each request the client sent and the server has not yet
/// answered, by the request's id as JSON text (`7`, `"a"`); and, by
/// [`partial_key`], the partial result tokens of those requests (`method id`).
pub type SentRequests = HashMap<String, String>;

/// The key of a partial result token among the sent requests.
pub fn partial_key(token: &Value) -> String {
    format!("partial:{token}")
}

pub fn is_partial_key(key: &str) -> bool {
    key.starts_with("partial:")
}

/// A type of the meta model. A kind this checker does not know fails the
/// reading of the model, not a test later.
#[derive(Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Type {
    Base { name: Base },
    Reference { name: String },
    Array { element: Box<Type> },
    Map { key: Box<Type>, value: Box<Type> },
    And { items: Vec<Type> },
    Or { items: Vec<Type> },
    Tuple { items: Vec<Type> },
    Literal { value: Literal },
    StringLiteral { value: String },
    IntegerLiteral { value: i64 },
    BooleanLiteral { value: bool },
}

/// A base type, named as the model names it (`Debug` writes it so).
#[derive(Clone, Copy, Debug, Deserialize)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
pub enum Base {
    URI,
    DocumentUri,
    integer,
    uinteger,
    decimal,
    RegExp,
    string,
    boolean,
    null,
}

/// An inline structure (`{ line: uinteger; character?: uinteger }`).
#[derive(Clone, Deserialize)]
pub struct Literal {
    properties: Vec<Property>,
}

#[derive(Clone, Deserialize)]
struct Property {
    name: String,
    #[serde(rename = "type")]
    ty: Type,
    #[serde(default)]
    optional: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Structure {
    name: String,
    properties: Vec<Property>,
    #[serde(default)]
    extends: Vec<Type>,
    #[serde(default)]
    mixins: Vec<Type>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Enumeration {
    name: String,
    #[serde(rename = "type")]
    ty: Type,
    values: Vec<EnumerationValue>,
    #[serde(default)]
    supports_custom_values: bool,
}

#[derive(Deserialize)]
struct EnumerationValue {
    value: Value,
}

#[derive(Deserialize)]
struct TypeAlias {
    name: String,
    #[serde(rename = "type")]
    ty: Type,
}

/// A request or a notification.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Method {
    method: String,
    message_direction: String,
    params: Option<Type>,
    result: Option<Type>,
    partial_result: Option<Type>,
    error_data: Option<Type>,
}

#[derive(Deserialize)]
struct Document {
    requests: Vec<Method>,
    notifications: Vec<Method>,
    structures: Vec<Structure>,
    enumerations: Vec<Enumeration>,
    #[serde(rename = "typeAliases")]
    aliases: Vec<TypeAlias>,
}

/// The meta model, indexed by name.
pub struct MetaModel {
    requests: HashMap<String, Method>,
    notifications: HashMap<String, Method>,
    /// Each structure's properties: its own, and those of the structures it
    /// extends or mixes in (an own property replaces an inherited one).
    structures: HashMap<String, Vec<Property>>,
    enumerations: HashMap<String, Enumeration>,
    aliases: HashMap<String, Type>,
}

/// The meta model, read once per test binary.
pub fn model() -> &'static MetaModel {
    static MODEL: OnceLock<MetaModel> = OnceLock::new();
    MODEL.get_or_init(|| {
        let text = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/lsp_meta_model/metaModel.json"
        ));
        MetaModel::from(serde_json::from_str::<Document>(text).expect("the meta model reads"))
    })
}

/// The violations of LSP 3.17 in one message from the server, each with
/// what the message is and where in it. A response is checked against the
/// request of `sent` it answers, which it removes.
pub fn check_server_message(message: &Value, sent: &mut SentRequests) -> Vec<String> {
    let Some(object) = message.as_object() else {
        return vec![format!(
            "a message must be an object, got {}",
            excerpt(message)
        )];
    };
    let mut errors = Vec::new();
    if message["jsonrpc"] != "2.0" {
        errors.push(format!(
            "jsonrpc: expected \"2.0\", got {}",
            excerpt(&message["jsonrpc"])
        ));
    }
    let label = match (object.get("method"), object.get("id")) {
        (Some(method), id) => model().check_call(method, id, object, sent, &mut errors),
        (None, Some(id)) => model().check_response(id, object, sent, &mut errors),
        (None, None) => {
            errors.push(
                "no `method` and no `id`: neither a request, a notification nor a response".into(),
            );
            "message".into()
        }
    };
    errors
        .into_iter()
        .map(|e| format!("{label}: {e}"))
        .collect()
}

/// Where a value sits in a message (`result[3].range.start.line`), written
/// out only when there is a violation to report.
#[derive(Clone, Copy)]
pub enum Path<'a> {
    Root(&'a str),
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Path::Root(name) => f.write_str(name),
            Path::Key(parent, key) if is_identifier(key) => write!(f, "{parent}.{key}"),
            Path::Key(parent, key) => write!(f, "{parent}[{}]", Value::from(*key)),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

fn is_identifier(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

impl From<Document> for MetaModel {
    fn from(document: Document) -> MetaModel {
        let declared: HashMap<&str, &Structure> = document
            .structures
            .iter()
            .map(|s| (s.name.as_str(), s))
            .collect();
        let by_method =
            |methods: Vec<Method>| methods.into_iter().map(|m| (m.method.clone(), m)).collect();
        MetaModel {
            structures: declared
                .keys()
                .map(|name| (name.to_string(), all_properties(&declared, name)))
                .collect(),
            requests: by_method(document.requests),
            notifications: by_method(document.notifications),
            enumerations: document
                .enumerations
                .into_iter()
                .map(|e| (e.name.clone(), e))
                .collect(),
            aliases: document
                .aliases
                .into_iter()
                .map(|a| (a.name, a.ty))
                .collect(),
        }
    }
}

/// A structure's properties with those it inherits.
fn all_properties(declared: &HashMap<&str, &Structure>, name: &str) -> Vec<Property> {
    let structure = declared[name];
    let mut properties: Vec<Property> = structure
        .extends
        .iter()
        .chain(&structure.mixins)
        .flat_map(|parent| match parent {
            Type::Reference { name } => all_properties(declared, name),
            _ => panic!("{name} extends a type that is not a structure"),
        })
        .collect();
    for own in &structure.properties {
        properties.retain(|p| p.name != own.name);
        properties.push(own.clone());
    }
    properties
}

impl MetaModel {
    /// A request's or a notification's method, id and params; its label.
    fn check_call(
        &self,
        method: &Value,
        id: Option<&Value>,
        message: &Map<String, Value>,
        sent: &SentRequests,
        errors: &mut Vec<String>,
    ) -> String {
        let (kind, known, keys): (_, _, &[&str]) = match id {
            Some(_) => (
                "request",
                &self.requests,
                &["jsonrpc", "id", "method", "params"],
            ),
            None => (
                "notification",
                &self.notifications,
                &["jsonrpc", "method", "params"],
            ),
        };
        let Some(method) = method.as_str() else {
            errors.push(format!("method: expected string, got {}", excerpt(method)));
            return kind.into();
        };
        let label = format!("{kind} {method}");
        if let Some(id) = id.filter(|id| !is_request_id(id)) {
            errors.push(format!(
                "id: expected integer | string, got {}",
                excerpt(id)
            ));
        }
        unknown_keys(message, keys, errors);
        let Some(definition) = known.get(method) else {
            // `$/` methods too: the three of them a server may send are in the model.
            errors.push(format!("not a {kind} of LSP 3.17"));
            return label;
        };
        if definition.message_direction == "clientToServer" {
            errors.push(format!("a client-to-server {kind}, sent by the server"));
        }
        match (&definition.params, message.get("params")) {
            (Some(ty), Some(params)) => self.check(params, ty, &Path::Root("params"), errors),
            (Some(ty), None) => errors.push(format!("params: missing, expected {ty}")),
            // The base protocol: `params?: array | object`; a method without
            // params has no `params` key, not a null one.
            (None, Some(params)) => errors.push(format!(
                "params: {} given, but {method} has no params: the key must be absent",
                excerpt(params)
            )),
            (None, None) => {}
        }
        // A partial result of a request not yet answered: its type is the request's.
        let partial = message
            .get("params")
            .and_then(|p| p.get("token"))
            .and_then(|token| sent.get(&partial_key(token)))
            .and_then(|request| request.split(' ').next())
            .and_then(|request| self.requests.get(request))
            .and_then(|request| request.partial_result.as_ref());
        if method == "$/progress"
            && let Some(ty) = partial
            && let Some(value) = message.get("params").and_then(|p| p.get("value"))
        {
            self.check(value, ty, &Path::Root("params.value"), errors);
            return label;
        }
        // Work-done progress is `LSPAny` to the model; its three shapes are
        // structures of their own, told apart by `kind`.
        if method == "$/progress"
            && let Some(value) = message.get("params").and_then(|p| p.get("value"))
        {
            let shape = match value.get("kind").and_then(Value::as_str) {
                Some("begin") => Some("WorkDoneProgressBegin"),
                Some("report") => Some("WorkDoneProgressReport"),
                Some("end") => Some("WorkDoneProgressEnd"),
                _ => None,
            };
            match shape {
                Some(name) => self.check(
                    value,
                    &Type::Reference { name: name.into() },
                    &Path::Root("params.value"),
                    errors,
                ),
                None => errors.push(format!(
                    "params.value: expected a work-done progress (kind begin, report or end), got {}",
                    excerpt(value)
                )),
            }
        }
        label
    }

    /// A response: its id among the requests sent, then its result (against
    /// the request's result type) or its error; its label.
    fn check_response(
        &self,
        id: &Value,
        message: &Map<String, Value>,
        sent: &mut SentRequests,
        errors: &mut Vec<String>,
    ) -> String {
        unknown_keys(message, &["jsonrpc", "id", "result", "error"], errors);
        // `id: null` answers a message whose id could not be read (a parse error).
        let method = match id {
            Value::Null => None,
            id if !is_request_id(id) => {
                errors.push(format!(
                    "id: expected integer | string | null, got {}",
                    excerpt(id)
                ));
                None
            }
            id => {
                let method = sent.remove(&id.to_string());
                // Answered: a partial result after this one breaks the protocol.
                if let Some(method) = &method {
                    let request = format!("{method} {id}");
                    sent.retain(|key, value| !(is_partial_key(key) && *value == request));
                }
                if method.is_none() {
                    errors.push(
                        "answers no request the client sent (or one already answered)".into(),
                    );
                }
                method
            }
        };
        let label = match &method {
            Some(method) => format!("response to {id} ({method})"),
            None => format!("response to {id}"),
        };
        // A method outside the model (`report-lsp/status`) has no result type to check.
        let definition = method.as_deref().and_then(|m| self.requests.get(m));
        match (message.get("result"), message.get("error")) {
            (Some(_), Some(_)) => errors.push("both `result` and `error`".into()),
            (None, None) => errors.push("neither `result` nor `error`".into()),
            (Some(result), None) => {
                if id.is_null() {
                    errors.push("a result for id null".into());
                }
                if let Some(ty) = definition.and_then(|d| d.result.as_ref()) {
                    self.check(result, ty, &Path::Root("result"), errors);
                }
            }
            (None, Some(error)) => {
                let data = definition.and_then(|d| d.error_data.as_ref());
                self.check_error(error, data, errors)
            }
        }
        label
    }

    /// A `ResponseError` (base protocol, not in the model): integer `code`,
    /// string `message`, `data` of the request's `errorData` type if it has one.
    fn check_error(&self, error: &Value, data: Option<&Type>, errors: &mut Vec<String>) {
        let Some(object) = error.as_object() else {
            errors.push(format!(
                "error: expected ResponseError, got {}",
                excerpt(error)
            ));
            return;
        };
        if !Base::integer.matches(&error["code"]) {
            errors.push(format!(
                "error.code: expected integer, got {}",
                excerpt(&error["code"])
            ));
        }
        if !error["message"].is_string() {
            errors.push(format!(
                "error.message: expected string, got {}",
                excerpt(&error["message"])
            ));
        }
        if let (Some(value), Some(ty)) = (object.get("data"), data) {
            self.check(value, ty, &Path::Key(&Path::Root("error"), "data"), errors);
        }
        let mut unknown = Vec::new();
        unknown_keys(object, &["code", "message", "data"], &mut unknown);
        errors.extend(unknown.into_iter().map(|e| format!("error.{e}")));
    }

    /// The violations of `value` against `ty`, at `path`.
    pub fn check(&self, value: &Value, ty: &Type, path: &Path, errors: &mut Vec<String>) {
        let mismatch = |errors: &mut Vec<String>| {
            errors.push(format!("{path}: expected {ty}, got {}", excerpt(value)));
        };
        match ty {
            Type::Base { name } if !name.matches(value) => mismatch(errors),
            Type::Base { .. } => {}
            Type::Reference { name } => self.check_reference(value, name, path, errors),
            Type::Array { element } => match value.as_array() {
                Some(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.check(item, element, &Path::Index(path, i), errors);
                    }
                }
                None => mismatch(errors),
            },
            Type::Tuple { items: types } => match value.as_array() {
                Some(items) if items.len() == types.len() => {
                    for (i, (item, ty)) in items.iter().zip(types).enumerate() {
                        self.check(item, ty, &Path::Index(path, i), errors);
                    }
                }
                _ => mismatch(errors),
            },
            Type::Map {
                key,
                value: item_type,
            } => match value.as_object() {
                Some(object) => {
                    for (name, item) in object {
                        let at = Path::Key(path, name);
                        if !self.fits_key(name, key) {
                            errors.push(format!("{at}: a key, expected {key}"));
                        }
                        self.check(item, item_type, &at, errors);
                    }
                }
                None => mismatch(errors),
            },
            Type::Literal { value: literal } => {
                self.check_properties(value, &literal.properties, &ty.to_string(), path, errors)
            }
            Type::And { items } => {
                // An intersection of structures: one object with all their properties.
                let properties: Vec<Property> = items
                    .iter()
                    .flat_map(|item| match item {
                        Type::Reference { name } => self.structures[name].clone(),
                        Type::Literal { value } => value.properties.clone(),
                        _ => panic!("an intersection of {item}, which is no structure"),
                    })
                    .collect();
                self.check_properties(value, &properties, &ty.to_string(), path, errors);
            }
            Type::Or { items } => self.check_or(value, ty, items, path, errors),
            Type::StringLiteral { value: literal } if value.as_str() != Some(literal) => {
                mismatch(errors)
            }
            Type::IntegerLiteral { value: literal } if value.as_i64() != Some(*literal) => {
                mismatch(errors)
            }
            Type::BooleanLiteral { value: literal } if value.as_bool() != Some(*literal) => {
                mismatch(errors)
            }
            Type::StringLiteral { .. }
            | Type::IntegerLiteral { .. }
            | Type::BooleanLiteral { .. } => {}
        }
    }

    fn check_reference(&self, value: &Value, name: &str, path: &Path, errors: &mut Vec<String>) {
        if name == "LSPAny" {
            // Every JSON value is one; no need to walk a big `data` or setting.
            return;
        }
        if let Some(properties) = self.structures.get(name) {
            self.check_properties(value, properties, name, path, errors);
        } else if let Some(enumeration) = self.enumerations.get(name) {
            let mut found = Vec::new();
            self.check(value, &enumeration.ty, path, &mut found);
            let known = enumeration.values.iter().any(|v| v.value == *value);
            if !found.is_empty() || !(known || enumeration.supports_custom_values) {
                let values: Vec<String> = enumeration
                    .values
                    .iter()
                    .map(|v| v.value.to_string())
                    .collect();
                let open = match enumeration.supports_custom_values {
                    true => format!(" or any {}", enumeration.ty),
                    false => String::new(),
                };
                errors.push(format!(
                    "{path}: expected {name} ({}{open}), got {}",
                    values.join(", "),
                    excerpt(value)
                ));
            }
        } else if let Some(ty) = self.aliases.get(name) {
            self.check(value, ty, path, errors);
        } else {
            panic!("{name}: not a type of the meta model");
        }
    }

    /// An object with these properties and no others; an optional one may be
    /// absent, but when present (even as null) it must match its type.
    fn check_properties(
        &self,
        value: &Value,
        properties: &[Property],
        what: &str,
        path: &Path,
        errors: &mut Vec<String>,
    ) {
        let Some(object) = value.as_object() else {
            errors.push(format!("{path}: expected {what}, got {}", excerpt(value)));
            return;
        };
        for property in properties {
            match object.get(&property.name) {
                Some(item) => {
                    self.check(item, &property.ty, &Path::Key(path, &property.name), errors)
                }
                None if property.optional => {}
                None => errors.push(format!("{path}: missing `{}` of {what}", property.name)),
            }
        }
        for key in object.keys() {
            if !properties.iter().any(|p| p.name == *key) {
                errors.push(format!(
                    "{}: not a property of {what}",
                    Path::Key(path, key)
                ));
            }
        }
    }

    /// A union: one alternative must match. When none does, the violations
    /// of the one alternative of the value's JSON shape that comes closest
    /// say the most (`result[0].range.start.line` rather than `result`).
    fn check_or(
        &self,
        value: &Value,
        ty: &Type,
        items: &[Type],
        path: &Path,
        errors: &mut Vec<String>,
    ) {
        let mut closest: Vec<Vec<String>> = Vec::new();
        for item in items {
            let mut found = Vec::new();
            self.check(value, item, path, &mut found);
            if found.is_empty() {
                return;
            }
            if self.fits_shape(value, item) {
                closest.push(found);
            }
        }
        closest.sort_by_key(Vec::len);
        match closest.as_slice() {
            [best] => errors.extend(best.iter().cloned()),
            [best, next, ..] if best.len() < next.len() => errors.extend(best.iter().cloned()),
            _ => errors.push(format!("{path}: expected {ty}, got {}", excerpt(value))),
        }
    }

    /// Whether `value` has the JSON shape of `ty` (object, array, string…).
    fn fits_shape(&self, value: &Value, ty: &Type) -> bool {
        match ty {
            Type::Base { name: Base::null } => value.is_null(),
            Type::Base {
                name: Base::boolean,
            }
            | Type::BooleanLiteral { .. } => value.is_boolean(),
            Type::Base {
                name: Base::integer | Base::uinteger | Base::decimal,
            }
            | Type::IntegerLiteral { .. } => value.is_number(),
            Type::Base { .. } | Type::StringLiteral { .. } => value.is_string(),
            Type::Reference { name } if name == "LSPAny" => true,
            Type::Reference { name } if self.structures.contains_key(name) => value.is_object(),
            Type::Reference { name } => match self.enumerations.get(name) {
                Some(enumeration) => self.fits_shape(value, &enumeration.ty),
                None => self.fits_shape(value, &self.aliases[name]),
            },
            Type::Array { .. } | Type::Tuple { .. } => value.is_array(),
            Type::Map { .. } | Type::Literal { .. } | Type::And { .. } => value.is_object(),
            Type::Or { items } => items.iter().any(|item| self.fits_shape(value, item)),
        }
    }

    /// A map's key: an object key is a string, whatever type the model gives.
    fn fits_key(&self, key: &str, ty: &Type) -> bool {
        match ty {
            Type::Base {
                name: Base::integer | Base::uinteger,
            } => key.parse::<i64>().is_ok(),
            _ => {
                let mut found = Vec::new();
                self.check(&Value::from(key), ty, &Path::Root(""), &mut found);
                found.is_empty()
            }
        }
    }
}

impl Base {
    fn matches(self, value: &Value) -> bool {
        match self {
            Base::string | Base::RegExp => value.is_string(),
            Base::URI | Base::DocumentUri => value.as_str().is_some_and(has_scheme),
            // A float such as 3.0 is not an integer: serde_json gives no i64 for it.
            Base::integer => value.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
            Base::uinteger => value.as_u64().is_some_and(|n| n <= i32::MAX as u64),
            Base::decimal => value.is_number(),
            Base::boolean => value.is_boolean(),
            Base::null => value.is_null(),
        }
    }
}

/// RFC 3986: `scheme ":" …`, the scheme a letter then letters, digits, `+`, `-`, `.`.
fn has_scheme(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

fn is_request_id(id: &Value) -> bool {
    id.is_string() || Base::integer.matches(id)
}

fn unknown_keys(object: &Map<String, Value>, known: &[&str], errors: &mut Vec<String>) {
    for key in object.keys().filter(|k| !known.contains(&k.as_str())) {
        errors.push(format!("{key}: not a member of this kind of message"));
    }
}

/// A type as the specification writes it: `Position`, `TextEdit[]`, `A | null`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let join = |items: &[Type], separator: &str| {
            items
                .iter()
                .map(Type::to_string)
                .collect::<Vec<_>>()
                .join(separator)
        };
        match self {
            Type::Base { name } => write!(f, "{name:?}"),
            Type::Reference { name } => f.write_str(name),
            Type::Array { element } => match **element {
                Type::Or { .. } | Type::And { .. } => write!(f, "({element})[]"),
                _ => write!(f, "{element}[]"),
            },
            Type::Map { key, value } => write!(f, "{{ [key: {key}]: {value} }}"),
            Type::And { items } => f.write_str(&join(items, " & ")),
            Type::Or { items } => f.write_str(&join(items, " | ")),
            Type::Tuple { items } => write!(f, "[{}]", join(items, ", ")),
            Type::Literal { value } => {
                let names: Vec<String> = value
                    .properties
                    .iter()
                    .map(|p| format!("{}{}", p.name, if p.optional { "?" } else { "" }))
                    .collect();
                write!(f, "{{ {} }}", names.join(", "))
            }
            Type::StringLiteral { value } => write!(f, "{}", Value::from(value.as_str())),
            Type::IntegerLiteral { value } => write!(f, "{value}"),
            Type::BooleanLiteral { value } => write!(f, "{value}"),
        }
    }
}

/// A value in a violation: its JSON, cut short.
pub fn excerpt(value: &Value) -> String {
    const LONGEST: usize = 80;
    let text = value.to_string();
    match text.char_indices().nth(LONGEST) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
