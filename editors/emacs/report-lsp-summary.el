;;; report-lsp-summary.el --- report-lsp's summary of a report, in eglot or lsp-mode  -*- lexical-binding: t -*-

;; `M-x report-lsp-summary' in a report that eglot or lsp-mode connects to
;; report-lsp shows the reviewer's view of it (what the cleaner may do,
;; savings by category, op, file, the problems) as Markdown in a read-only
;; buffer, `*report-lsp summary: FILE*' (markdown-mode when there is one,
;; `q' quits it). One request serves it:
;;
;;   report-lsp/summary {uri, format: "markdown"}
;;     -> {format, content, entries: [{index, range}], fromDisk}
;;
;; Load it beside your setup: (load "/path/to/editors/emacs/report-lsp-summary.el"),
;; or put the folder on `load-path' and (require 'report-lsp-summary).
;; (tests/emacs.rs runs it in both clients.)

(require 'seq)

(declare-function eglot-current-server "eglot")
(declare-function eglot--TextDocumentIdentifier "eglot")
(declare-function jsonrpc-request "jsonrpc")
(declare-function lsp-find-workspace "lsp-mode")
(declare-function lsp-request "lsp-mode")
(declare-function lsp--buffer-uri "lsp-mode")
(defvar lsp--cur-workspace)

(defvar-local report-lsp-summary-answer nil
  "In a summary buffer, the server's answer: its `entries' give the range
of each entry the summary names, `fromDisk' whether the report was read
from disk (it was not open).")

(defun report-lsp-summary--get (object key)
  "KEY (a keyword) of OBJECT, a plist (eglot) or a hash table (lsp-mode)."
  (if (hash-table-p object)
      (gethash (substring (symbol-name key) 1) object)
    (plist-get object key)))

(defun report-lsp-summary--ask (format)
  "Ask the report-lsp server of the current buffer for its summary in
FORMAT; the answer, or a `user-error' saying why there is none."
  (let ((eglot (and (fboundp 'eglot-current-server) (eglot-current-server)))
        (lsp (and (bound-and-true-p lsp-mode) buffer-file-name
                  (fboundp 'lsp-find-workspace)
                  (lsp-find-workspace 'report-lsp buffer-file-name))))
    (condition-case err
        (cond
         (eglot
          ;; Edits eglot holds back (it sends them after a pause) first, so
          ;; that the summary is of the text in the buffer.
          (when (fboundp 'eglot--signal-textDocument/didChange)
            (eglot--signal-textDocument/didChange))
          (jsonrpc-request eglot :report-lsp/summary
                           (list :uri (plist-get (eglot--TextDocumentIdentifier) :uri)
                                 :format format)))
         (lsp
          ;; That server only, not every one of the buffer (an add-on's).
          (let ((lsp--cur-workspace lsp))
            (lsp-request "report-lsp/summary"
                         (list :uri (lsp--buffer-uri) :format format))))
         (t (user-error "report-lsp: no report-lsp server serves this buffer: \
open a machine report (*.report.json, machine-report*.json) with eglot or lsp-mode")))
      (user-error (signal (car err) (cdr err)))
      (error
       (user-error "report-lsp: no summary: %s"
                   (or (alist-get 'jsonrpc-error-message (cdr err))
                       (error-message-string err)))))))

(defun report-lsp-summary--show (file answer)
  "Show ANSWER's content for the report FILE; return the buffer."
  (let ((buffer (get-buffer-create
                 (format "*report-lsp summary: %s*" (file-name-nondirectory file))))
        (content (report-lsp-summary--get answer :content)))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (when (bound-and-true-p view-mode) (view-mode -1))
        (erase-buffer)
        (insert (if (stringp content) content (format "%S" content)))
        (goto-char (point-min))
        (if (fboundp 'markdown-mode) (markdown-mode) (text-mode))
        (setq report-lsp-summary-answer answer)
        (set-buffer-modified-p nil)
        ;; Read-only, `q' to quit.
        (view-mode 1)))
    (pop-to-buffer buffer)
    buffer))

;;;###autoload
(defun report-lsp-summary ()
  "Show the summary of the report in the current buffer, as Markdown, in
a read-only buffer. Asks its report-lsp server (eglot or lsp-mode) with
`report-lsp/summary'."
  (interactive)
  (let ((file (or buffer-file-name (buffer-name))))
    (report-lsp-summary--show file (report-lsp-summary--ask "markdown"))))

(provide 'report-lsp-summary)
;;; report-lsp-summary.el ends here
