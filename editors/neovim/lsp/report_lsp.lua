-- report-lsp for Neovim 0.11+, in the nvim-lspconfig style: with this
-- folder's parent (editors/neovim) on 'runtimepath', Neovim finds this file
-- as the "report_lsp" configuration, and
--
--   vim.lsp.enable("report_lsp")
--
-- starts the server for report files. Change any field with
-- vim.lsp.config("report_lsp", { ... }) before enabling it.
return {
  cmd = { "report-lsp" },
  filetypes = { "json", "jsonc" },
  -- Only report files: JSON in general is not ours.
  root_dir = function(bufnr, on_dir)
    local name = vim.api.nvim_buf_get_name(bufnr)
    local tail = vim.fs.basename(name)
    if tail:match("%.report%.json$") or tail:match("^machine%-report.*%.json$") then
      on_dir(vim.fs.root(bufnr, { ".git" }) or vim.fs.dirname(name))
    end
  end,
  -- Asked for by the server (workspace/configuration, section "reportLsp"):
  -- maxDiagnostics, maxDocumentBytes, files.
  settings = { reportLsp = {} },
}
