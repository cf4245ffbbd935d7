vim9script
# report-lsp for Vim 9 with yegappan/lsp: put this file in ~/.vim/plugin/
# (or source it from your vimrc), with `report-lsp` on PATH.

# Report files get a filetype of their own, after JSON's (so JSON's
# highlighting and indenting apply), so that other JSON keeps its servers.
augroup report_lsp_filetype
  autocmd!
  autocmd BufNewFile,BufRead *.report.json,machine-report*.json set filetype=json.machine-report
augroup END

def AddServer()
  g:LspAddServer([{
    name: 'report-lsp',
    filetype: ['json.machine-report'],
    path: 'report-lsp',
    args: ['--stdio'],
    # Sent at start-up.
    initializationOptions: {
      reportLsp: {
        files: ['**/*.report.json', '**/machine-report*.json'],
        workspaceChecks: 'on',
        logLevel: 'info',
      },
    },
    # Sent as workspace/didChangeConfiguration, and the answer to the
    # server's workspace/configuration (section "reportLsp").
    workspaceConfig: {
      reportLsp: {
        files: ['**/*.report.json', '**/machine-report*.json'],
        # 'off' in a repository you do not trust.
        workspaceChecks: 'on',
        # How much of the server's log the trace carries: 'debug' adds the
        # timing of each analysis and workspace pass.
        logLevel: 'info',
      },
    },
    # The trace: 'verbose' (or `:LspServer trace verbose`) has the server
    # send its log, which `:LspServer show messages` shows.
    traceLevel: 'off',
  }])
enddef

# Now if the plugin is loaded, else once it is (it runs LspSetup then).
if exists('*g:LspAddServer')
  AddServer()
else
  autocmd User LspSetup AddServer()
endif
