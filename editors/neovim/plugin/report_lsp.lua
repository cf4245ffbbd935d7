-- The plugin's commands, there as soon as editors/neovim is on
-- 'runtimepath' (with setup() or with lsp/report_lsp.lua alone).
if vim.g.loaded_report_lsp then
  return
end
vim.g.loaded_report_lsp = true
require("report_lsp").create_commands()
