;;; lsp-mode-setup.el --- report-lsp in Emacs's lsp-mode  -*- lexical-binding: t -*-

;; lsp-mode 8 and later; the server, `report-lsp', on PATH. (tests/emacs.rs
;; loads this file, and checks that editors/README.md quotes it.)

(require 'lsp-mode)

;; Reports by name, the server's default `files' globs.
(defconst report-lsp-file-patterns
  '("\\.report\\.json\\'" "machine-report[^/]*\\.json\\'"))

;; Emacs 29 and later open JSON in js-json-mode; Emacs 28 in js-mode.
(if (fboundp 'js-json-mode)
    (define-derived-mode machine-report-mode js-json-mode "Report")
  (define-derived-mode machine-report-mode js-mode "Report"))
(dolist (pattern report-lsp-file-patterns)
  (add-to-list 'auto-mode-alist (cons pattern 'machine-report-mode)))
(add-to-list 'lsp-language-id-configuration '(machine-report-mode . "json"))

(defun report-lsp-activate-p (file-name mode)
  "A report by its FILE-NAME, or a Markdown file (MODE) of a folder whose
report server runs already: the reports' entries show on it. No server
starts for Markdown alone."
  (or (seq-some (lambda (pattern) (string-match-p pattern file-name))
                report-lsp-file-patterns)
      (and (provided-mode-derived-p mode 'markdown-mode)
           (lsp-find-workspace 'report-lsp file-name))))

(lsp-register-client
 (make-lsp-client
  :new-connection (lsp-stdio-connection "report-lsp")
  :activation-fn #'report-lsp-activate-p
  :server-id 'report-lsp
  ;; Beside any other server of the mode (a JSON or Markdown one).
  :add-on? t))

;; The lenses: the token roll-up on `entries', an entry on a target's span.
(setq lsp-lens-enable t)
(add-hook 'machine-report-mode-hook #'lsp-deferred)

(defun report-lsp-join-markdown ()
  "Start lsp-mode in a Markdown file of a folder whose report server runs."
  (when (and buffer-file-name (lsp-find-workspace 'report-lsp buffer-file-name))
    (lsp-deferred)))
(add-hook 'markdown-mode-hook #'report-lsp-join-markdown)

;;; lsp-mode-setup.el ends here
