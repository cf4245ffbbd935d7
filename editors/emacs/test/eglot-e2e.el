;;; eglot-e2e.el --- report-lsp in Emacs's eglot, headless  -*- lexical-binding: t -*-

;; Run by tests/emacs.rs:
;;   emacs --batch -q -l editors/emacs/test/eglot-e2e.el
;; (-q, not -Q: Debian's elpa-eglot is activated by the site start files.)
;; Reads REPORT_LSP_BIN, REPORT_LSP_FILE and REPORT_LSP_OUT from the
;; environment; opens the report with the setup editors/README.md gives,
;; waits for the diagnostics, asks for the code actions at the first wrong
;; safety_tier, applies the tier fix, waits for its diagnostic to go, then
;; visits the Markdown file REPORT_LSP_TARGET another report names (its
;; hint), runs `report-lsp-summary' (editors/emacs/report-lsp-summary.el)
;; in the report, in the Markdown file and in a buffer no server serves,
;; and writes what it saw as JSON to REPORT_LSP_OUT.

(require 'eglot)
(require 'json)
(require 'subr-x)
(load (expand-file-name "../report-lsp-summary.el"
                        (file-name-directory (or load-file-name buffer-file-name))))

;; The setup of editors/README.md (Emacs 28: derived from js-mode).
(define-derived-mode machine-report-mode js-mode "Report")
(add-to-list 'auto-mode-alist '("\\.report\\.json\\'" . machine-report-mode))
(add-to-list 'auto-mode-alist '("machine-report[^/]*\\.json\\'" . machine-report-mode))
;; Markdown joins the report server of its project once one runs (eglot
;; manages a file visited in a project whose server covers its mode); no
;; server starts for Markdown alone. Without the markdown-mode package, a
;; stand-in.
(unless (fboundp 'markdown-mode)
  (define-derived-mode markdown-mode text-mode "Markdown"))
(add-to-list 'auto-mode-alist '("\\.md\\'" . markdown-mode))
(add-to-list 'eglot-server-programs
             `((machine-report-mode markdown-mode) ,(getenv "REPORT_LSP_BIN")))

(setq make-backup-files nil)
(setq eglot-sync-connect t)

(defvar e2e-out nil "What the test saw, an alist written as JSON.")

(defun e2e-record (key value)
  (push (cons key value) e2e-out))

(defun e2e-diagnostics ()
  "The flymake diagnostics as (line . code), in buffer order."
  (let (list)
    (dolist (d (flymake-diagnostics))
      (let ((text (flymake-diagnostic-text d)))
        (push (list (cons 'line (line-number-at-pos (flymake-diagnostic-beg d)))
                    (cons 'code (and (string-match "\\[\\([a-z0-9-]+\\)\\]" text)
                                     (match-string 1 text)))
                    (cons 'beg (flymake-diagnostic-beg d)))
              list)))
    (sort list (lambda (a b) (< (alist-get 'beg a) (alist-get 'beg b))))))

(defun e2e-wait (what predicate)
  "Wait up to 30 s for PREDICATE. In --batch flymake's timers never fire
and `eglot-ensure' waits for a command loop that never runs, so the loop
pumps the process output and starts flymake itself."
  (let ((deadline (+ (float-time) 30)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.2)
      (flymake-start))
    (unless (funcall predicate)
      (error "%s: not within 30 s" what))))

(defun e2e-run ()
  (find-file (getenv "REPORT_LSP_FILE"))
  (e2e-record 'mode (symbol-name major-mode))
  ;; `eglot-ensure' never fires in --batch: connect by hand.
  (apply #'eglot (eglot--guess-contact))
  (e2e-wait "diagnostics" (lambda () (flymake-diagnostics)))
  (let* ((before (e2e-diagnostics))
         (tier (seq-find (lambda (d) (equal (alist-get 'code d) "tier-mismatch")) before)))
    (e2e-record 'before (mapcar (lambda (d) (list (assq 'line d) (assq 'code d))) before))
    (unless tier (error "no tier-mismatch diagnostic"))
    (let* ((beg (alist-get 'beg tier))
           (actions (eglot-code-actions beg beg))
           (fix (seq-find (lambda (a) (string-prefix-p "Set safety_tier to" (plist-get a :title)))
                          actions)))
      (e2e-record 'actions (vconcat (mapcar (lambda (a) (plist-get a :title)) actions)))
      (unless fix (error "no tier fix offered"))
      (eglot--apply-workspace-edit (plist-get fix :edit))
      (e2e-record 'applied (plist-get fix :title))
      (save-buffer)
      (let ((line (alist-get 'line tier)))
        (e2e-wait "the fixed diagnostic going away"
                  (lambda ()
                    (not (seq-find (lambda (d) (and (equal (alist-get 'code d) "tier-mismatch")
                                                    (= (alist-get 'line d) line)))
                                   (e2e-diagnostics)))))
        (e2e-record 'tier_line line)
        (e2e-record 'after (length (e2e-diagnostics)))))))

(defun e2e-target ()
  "Visit REPORT_LSP_TARGET, which a report found in the folder names: the
report server manages it, and flymake shows the hint over the span the
clean removes."
  (find-file (getenv "REPORT_LSP_TARGET"))
  (e2e-record 'target_mode (symbol-name major-mode))
  (e2e-record 'target_managed (and (bound-and-true-p eglot--managed-mode) t))
  (e2e-wait "the target's hint" (lambda () (flymake-diagnostics)))
  (e2e-record 'target_hints
              (vconcat (mapcar (lambda (d)
                                 (list (cons 'line (line-number-at-pos (flymake-diagnostic-beg d)))
                                       (cons 'text (flymake-diagnostic-text d))))
                               (flymake-diagnostics)))))

(defun e2e-summary-of (file)
  "Run `report-lsp-summary' in FILE's buffer: what it shows, or the
message of its `user-error'."
  (with-current-buffer (find-file-noselect file)
    (condition-case err
        (with-current-buffer (call-interactively #'report-lsp-summary)
          (list (cons 'buffer (buffer-name))
                (cons 'mode (symbol-name major-mode))
                (cons 'read_only (and buffer-read-only t))
                (cons 'from_disk (if (eq (report-lsp-summary--get report-lsp-summary-answer :fromDisk) t) t :json-false))
                (cons 'entries (length (report-lsp-summary--get report-lsp-summary-answer :entries)))
                (cons 'text (buffer-substring-no-properties (point-min) (point-max)))))
      (user-error (list (cons 'user_error (error-message-string err)))))))

(defun e2e-summary ()
  "The report's summary; in the Markdown file (served, no report) and in a
buffer no server serves, the reason there is none."
  (e2e-record 'summary (e2e-summary-of (getenv "REPORT_LSP_FILE")))
  (e2e-record 'target_summary (e2e-summary-of (getenv "REPORT_LSP_TARGET")))
  (e2e-record 'scratch_summary
              (with-current-buffer (get-buffer-create "*scratch*")
                (condition-case err
                    (progn (report-lsp-summary) "shown")
                  (user-error (error-message-string err))))))

(condition-case err
    (progn (e2e-run) (e2e-target) (e2e-summary))
  (error (e2e-record 'error (error-message-string err))))
(with-temp-file (getenv "REPORT_LSP_OUT")
  (insert (json-encode e2e-out)))
(ignore-errors (eglot-shutdown (eglot-current-server)))
(kill-emacs 0)
;;; eglot-e2e.el ends here
