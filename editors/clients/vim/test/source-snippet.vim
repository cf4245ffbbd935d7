" Sources the Vim setup ($REPORT_LSP_SNIPPET) the way yegappan/lsp meets
" it, with a stub g:LspAddServer that keeps what it is given: defined
" before the setup ($REPORT_LSP_STUB is "before": the plugin was loaded
" first) or after it (then LspSetup runs, as the plugin does once loaded).
" Writes the servers added and the filetype of each name in
" $REPORT_LSP_NAMES (one a line) as JSON to $REPORT_LSP_OUT, or the error.
" Run by tests/client_snippets.rs: vim -Nu NONE -i NONE -es -S this-file.
let g:report_lsp_servers = []
function s:DefineStub() abort
  function! g:LspAddServer(servers) abort
    call extend(g:report_lsp_servers, a:servers)
  endfunction
endfunction
" As a vimrc has it: the setup's detection runs after Vim's own (*.json: json).
filetype on
try
  if $REPORT_LSP_STUB ==# 'before'
    call s:DefineStub()
  endif
  execute 'source' fnameescape($REPORT_LSP_SNIPPET)
  if $REPORT_LSP_STUB !=# 'before'
    call s:DefineStub()
    doautocmd User LspSetup
  endif
  let s:filetypes = {}
  for s:name in split($REPORT_LSP_NAMES, "\n")
    execute 'edit' fnameescape(s:name)
    let s:filetypes[s:name] = &filetype
  endfor
  call writefile([json_encode({'servers': g:report_lsp_servers, 'filetypes': s:filetypes})], $REPORT_LSP_OUT)
catch
  call writefile([json_encode({'error': v:exception . ' at ' . v:throwpoint})], $REPORT_LSP_OUT)
endtry
qall!
