-- report-lsp for Neovim 0.11+, in the nvim-lspconfig style: with this
-- folder's parent (editors/neovim) on 'runtimepath', Neovim finds this file
-- as the "report_lsp" configuration, and
--
--   vim.lsp.enable("report_lsp")
--
-- starts the server for report files, and attaches the Markdown files
-- under a root whose server runs (the reports' entries show on them).
-- Change any field with vim.lsp.config("report_lsp", { ... }) before
-- enabling it.
return {
  cmd = { "report-lsp" },
  filetypes = { "json", "jsonc", "markdown" },
  -- Only report files, and the Markdown they name: JSON in general is not ours.
  root_dir = function(bufnr, on_dir)
    local name = vim.api.nvim_buf_get_name(bufnr)
    local tail = vim.fs.basename(name)
    if tail:match("%.report%.json$") or tail:match("^machine%-report.*%.json$") then
      on_dir(vim.fs.root(bufnr, { ".git" }) or vim.fs.dirname(name))
    elseif vim.bo[bufnr].filetype == "markdown" then
      -- No server is started for Markdown alone.
      for _, client in ipairs(vim.lsp.get_clients({ name = "report_lsp" })) do
        local root = client.root_dir
        if root and name:sub(1, #root + 1) == root .. "/" then
          return on_dir(root)
        end
      end
    end
  end,
  -- Asked for by the server (workspace/configuration, section "reportLsp"):
  -- maxDiagnostics, maxDocumentBytes, files, targetHints.
  settings = { reportLsp = {} },
}
