;;; lsp-mode-e2e.el --- report-lsp in Emacs's lsp-mode, headless  -*- lexical-binding: t -*-

;; Run by tests/emacs.rs:
;;   emacs --batch -q -l editors/emacs/test/lsp-mode-e2e.el
;; (-q, not -Q: Debian's elpa-lsp-mode is activated by the site start files.)
;; Loads the setup editors/README.md gives (editors/emacs/lsp-mode-setup.el,
;; the server `report-lsp' on PATH). Reads REPORT_LSP_FILE, REPORT_LSP_TARGET,
;; REPORT_LSP_FIXED and REPORT_LSP_OUT from the environment. Opens the
;; report and waits for the diagnostics; hovers the first wrong
;; safety_tier; completes an op_type; applies the tier's quick fix and
;; waits for its diagnostic to go; runs fix-all (resolved); clicks every
;; lens lsp-mode shows; visits the Markdown file REPORT_LSP_TARGET another
;; report names (its hint, its lens clicked); runs `report-lsp-summary'
;; (editors/emacs/report-lsp-summary.el) in the report and in a buffer no
;; server serves; shuts the workspace down; and
;; writes what it saw as JSON to REPORT_LSP_OUT, with every message of
;; lsp-mode's IO log and every line Emacs showed as a message.

(require 'json)
(require 'subr-x)

(defvar e2e-messages nil "Every message shown, newest first.")
;; In --batch `message' writes to standard error only: keep them.
(advice-add 'message :around
            (lambda (show format &rest args)
              (let ((text (apply show format args)))
                (when text (push text e2e-messages))
                text)))

;; As Emacs does at start-up unless --batch: the packages' autoloads
;; (lsp-mode's lens, completion and diagnostics parts load through them).
(package-activate-all)
(load (expand-file-name "../lsp-mode-setup.el"
                        (file-name-directory (or load-file-name buffer-file-name))))
(load (expand-file-name "../report-lsp-summary.el"
                        (file-name-directory (or load-file-name buffer-file-name))))

(setq make-backup-files nil)
;; What a user sees in flymake (lsp-mode picks flycheck when installed).
(setq lsp-diagnostics-provider :flymake)
;; The folder of the report is the project: no question asked.
(setq lsp-auto-guess-root t)
;; Every message exchanged goes to the IO log, read at the end.
(setq lsp-log-io t)
;; A single code action is run without a menu.
(setq lsp-auto-execute-action t)
;; Without yasnippet, as lsp-mode asks; without company, its own
;; `completion-at-point' function.
(setq lsp-enable-snippet nil)
(setq lsp-completion-provider :none)
;; Emacs 28's flymake backend for Makefile-driven checks, which disables
;; itself with a warning in every buffer.
(require 'flymake)
(remove-hook 'flymake-diagnostic-functions #'flymake-proc-legacy-flymake)

(defvar e2e-out nil "What the test saw, an alist written as JSON.")

(defun e2e-record (key value)
  (push (cons key value) e2e-out))

(defun e2e-diagnostics ()
  "What flymake shows, in buffer order: each diagnostic's line and text
\(lsp-mode shows the message, not the code)."
  (mapcar (lambda (d)
            (list (cons 'line (line-number-at-pos (flymake-diagnostic-beg d)))
                  (cons 'text (flymake-diagnostic-text d))))
          (sort (flymake-diagnostics)
                (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b))))))

(defun e2e-held ()
  "The diagnostics lsp-mode holds for the buffer's file, as flymake is
given them: each one's line and code, in the server's order."
  (mapcar (lambda (d)
            (let ((start (lsp:range-start (lsp:diagnostic-range d))))
              (list (cons 'line (1+ (lsp:position-line start)))
                    (cons 'code (lsp:diagnostic-code? d))
                    (cons 'beg (lsp--position-to-point start)))))
          (gethash (lsp--fix-path-casing buffer-file-name) (lsp-diagnostics t))))

(defun e2e-idle ()
  "Run the idle timers due, as Emacs does when the user pauses: in
--batch they never fire, and lsp-mode runs its work after a change
\(`lsp-on-change-hook': the lenses asked for again) and flymake its
checks on them."
  (dolist (timer (copy-sequence timer-idle-list))
    (when (memq timer timer-idle-list)
      (timer-event-handler timer))))

(defvar e2e-published (make-hash-table :test 'equal)
  "The document version of each file's last diagnostics, by URI.")
(advice-add 'lsp--on-diagnostics :before
            (lambda (_workspace params)
              (puthash (lsp-get params :uri) (lsp-get params :version) e2e-published)))

(defun e2e-current-p ()
  "Whether the last diagnostics of the buffer's file are for its text
\(the server gives the version it analysed)."
  (equal (gethash (lsp--buffer-uri) e2e-published) lsp--cur-version))

(defun e2e-codes ()
  "The line and code of each diagnostic lsp-mode holds for the buffer."
  (mapcar (lambda (d) (list (assq 'line d) (assq 'code d))) (e2e-held)))

(defun e2e-wait (what predicate)
  "Wait up to 30 s for PREDICATE, pumping the process output and running
the idle timers. lsp-mode starts flymake again when the server registers
its watchers: the loop starts flymake too, in the buffer shown."
  (let ((deadline (+ (float-time) 30)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.2)
      (e2e-idle)
      (when (bound-and-true-p flymake-mode)
        (flymake-start)))
    (unless (funcall predicate)
      (error "%s: not within 30 s" what))))

(defun e2e-visit (file)
  "Visit FILE in the selected window and connect it as `lsp-deferred'
would once it is shown (its idle timer never fires in --batch)."
  (find-file file)
  (switch-to-buffer (current-buffer))
  (lsp)
  (e2e-wait "lsp-mode connecting" (lambda () (and (bound-and-true-p lsp-managed-mode)
                                                  (lsp-workspaces)))))

(defun e2e-hover ()
  "The text `lsp-describe-thing-at-point' shows."
  (lsp-describe-thing-at-point)
  (with-current-buffer "*lsp-help*" (buffer-substring-no-properties (point-min) (point-max))))

(defun e2e-complete ()
  "On the op_type before point, cut the value down to \"det\" and
complete it with `completion-at-point' (lsp-mode's completion function):
what it offered and the line it left."
  (search-backward "\"op_type\": \"deterministic\"")
  (forward-char (length "\"op_type\": \"det"))
  (delete-region (point) (+ (point) (length "erministic")))
  (let* ((capf (lsp-completion-at-point))
         (offered (all-completions "det" (nth 2 capf))))
    (e2e-record 'completion_offered (vconcat (mapcar #'substring-no-properties offered))))
  (completion-at-point)
  (e2e-record 'completed_line (string-trim (thing-at-point 'line t))))

(defun e2e-lenses ()
  "The lenses lsp-mode shows in the current buffer, each (TITLE . ACTION)."
  (let (lenses)
    (dolist (overlay lsp-lens--overlays)
      (dolist (lens (overlay-get overlay 'lsp--metadata))
        (push (cons (substring-no-properties lens) (get-text-property 0 'action lens)) lenses)))
    (nreverse lenses)))

(defun e2e-click-lenses ()
  "Wait for the lenses, then click each as `lsp-avy-lens' does (its
action, run as a command): their titles."
  (e2e-wait "the code lenses" (lambda () (e2e-lenses)))
  (let ((lenses (e2e-lenses)))
    (dolist (lens lenses)
      (call-interactively (cdr lens)))
    ;; Let the answers of the commands arrive.
    (accept-process-output nil 0.5)
    (vconcat (mapcar #'car lenses))))

(defun e2e-run ()
  (e2e-visit (getenv "REPORT_LSP_FILE"))
  (e2e-record 'mode (symbol-name major-mode))
  (e2e-record 'servers (vconcat (mapcar (lambda (w) (symbol-name (lsp--workspace-server-id w)))
                                        (lsp-workspaces))))
  (e2e-wait "diagnostics" (lambda () (flymake-diagnostics)))
  (let* ((tier (seq-find (lambda (d) (equal (alist-get 'code d) "tier-mismatch")) (e2e-held)))
         (line (alist-get 'line tier))
         ;; Inside the wrong tier's value, where its diagnostic starts.
         (at (1+ (alist-get 'beg tier))))
    (e2e-record 'before (vconcat (e2e-diagnostics)))
    (e2e-record 'held (vconcat (e2e-codes)))
    (unless tier (error "no tier-mismatch diagnostic"))
    (goto-char at)
    (e2e-record 'hover (e2e-hover))
    (e2e-record 'tier_line line)
    ;; The entry's op_type, above its safety_tier.
    (e2e-complete)
    ;; The quick fix at the wrong tier, chosen by its title.
    (goto-char at)
    (let* ((actions (lsp-code-actions-at-point))
           (fix (seq-find (lambda (a) (string-prefix-p "Set safety_tier to" (lsp:code-action-title a)))
                          actions)))
      (e2e-record 'actions (vconcat (mapcar #'lsp:code-action-title actions)))
      (unless fix (error "no tier fix offered"))
      (lsp-execute-code-action fix)
      (e2e-record 'applied (lsp:code-action-title fix)))
    (save-buffer)
    (e2e-wait "the fixed diagnostic going away"
              (lambda ()
                (and (e2e-current-p)
                     (not (seq-find (lambda (d) (and (equal (alist-get 'code d) "tier-mismatch")
                                                (= (alist-get 'line d) line)))
                                    (e2e-held))))))
    (e2e-wait "flymake showing them"
              (lambda () (equal (mapcar (lambda (d) (alist-get 'line d)) (e2e-diagnostics))
                                (mapcar (lambda (d) (alist-get 'line d)) (e2e-held)))))
    (e2e-record 'after (vconcat (e2e-diagnostics))))
  ;; Fix-all: the source action, its edit asked for by codeAction/resolve.
  (let ((tick (buffer-modified-tick)))
    (lsp-execute-code-action-by-kind "source.fixAll")
    (e2e-wait "fix-all's edit" (lambda () (/= tick (buffer-modified-tick)))))
  (write-region nil nil (getenv "REPORT_LSP_FIXED"))
  (e2e-record 'lenses (e2e-click-lenses)))

(defun e2e-target ()
  "Visit REPORT_LSP_TARGET, which a report found in the folder names: the
report server manages it, flymake shows the hint over the span the clean
removes, and its lens is clicked."
  (e2e-visit (getenv "REPORT_LSP_TARGET"))
  (e2e-record 'target_mode (symbol-name major-mode))
  (e2e-record 'target_servers (vconcat (mapcar (lambda (w) (symbol-name (lsp--workspace-server-id w)))
                                               (lsp-workspaces))))
  (e2e-wait "the target's hint" (lambda () (flymake-diagnostics)))
  (e2e-record 'target_hints
              (vconcat (mapcar (lambda (d)
                                 (list (cons 'line (line-number-at-pos (flymake-diagnostic-beg d)))
                                       (cons 'text (flymake-diagnostic-text d))))
                               (flymake-diagnostics))))
  (e2e-record 'target_lenses (e2e-click-lenses)))

(defun e2e-summary ()
  "`report-lsp-summary' in the report: what it shows; in a buffer no
server serves, the reason there is none."
  (with-current-buffer (find-file-noselect (getenv "REPORT_LSP_FILE"))
    (with-current-buffer (call-interactively #'report-lsp-summary)
      (e2e-record 'summary
                  (list (cons 'buffer (buffer-name))
                        (cons 'mode (symbol-name major-mode))
                        (cons 'read_only (and buffer-read-only t))
                        (cons 'from_disk (if (eq (report-lsp-summary--get report-lsp-summary-answer :fromDisk) t) t :json-false))
                        (cons 'entries (length (report-lsp-summary--get report-lsp-summary-answer :entries)))
                        (cons 'text (buffer-substring-no-properties (point-min) (point-max)))))))
  (e2e-record 'scratch_summary
              (with-current-buffer (get-buffer-create "*scratch*")
                (condition-case err
                    (progn (report-lsp-summary) "shown")
                  (user-error (error-message-string err))))))

(defun e2e-shutdown ()
  "Shut the workspace down with `lsp-workspace-shutdown': the server is
asked to (shutdown), then told to (exit), and its process ends."
  (let ((workspace (car (lsp-workspaces))))
    (lsp-workspace-shutdown workspace)
    (e2e-wait "the server stopping"
              (lambda () (not (process-live-p (lsp--workspace-proc workspace)))))
    (e2e-record 'shut_down (eq (lsp--workspace-shutdown-action workspace) 'shutdown))))

(defun e2e-io-log ()
  "Every message of lsp-mode's IO log (the `*lsp-log: report-lsp:PID*'
buffer): its type, method, and for a response the error it carried, if
any."
  (with-current-buffer (seq-find (lambda (b) (string-prefix-p "*lsp-log: report-lsp:" (buffer-name b)))
                                 (buffer-list))
    (when-let ((file (getenv "REPORT_LSP_IO_LOG")))
      (write-region nil nil file))
    (vconcat
     (mapcar (lambda (entry)
               (let ((body (lsp--log-entry-body entry)))
                 (list (cons 'type (symbol-name (lsp--log-entry-type entry)))
                       (cons 'method (lsp--log-entry-method entry))
                       (cons 'error (and (eq (lsp--log-entry-type entry) 'incoming-resp)
                                         (hash-table-p body)
                                         (gethash "code" body)
                                         (list (cons 'code (gethash "code" body))
                                               (cons 'message (gethash "message" body))))))))
             (ewoc-collect lsp--log-io-ewoc #'always)))))

(condition-case err
    (progn (e2e-run) (e2e-target) (e2e-summary) (e2e-shutdown))
  (error (e2e-record 'error (error-message-string err))))
(e2e-record 'log (e2e-io-log))
(e2e-record 'messages (vconcat (reverse e2e-messages)))
(with-temp-file (getenv "REPORT_LSP_OUT")
  (insert (json-encode e2e-out)))
(kill-emacs 0)
;;; lsp-mode-e2e.el ends here
