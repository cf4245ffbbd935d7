-- report-lsp for Neovim: starts (or reuses, one per root) the report-lsp
-- language server for machine report files.
--
--   require("report_lsp").setup({
--     cmd = { "report-lsp" },                               -- the server command
--     patterns = { "*.report.json", "machine-report*.json" }, -- which files are reports
--     root_markers = { ".git" },                            -- what marks a project root
--     settings = {},                                        -- maxDiagnostics, maxDocumentBytes, files
--     on_attach = function(client, bufnr) end,              -- your keymaps, for example
--   })
--
-- Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client) and
-- on Neovim 0.11+ (vim.lsp.config + vim.lsp.enable).

local M = {}

local defaults = {
  cmd = { "report-lsp" },
  patterns = { "*.report.json", "machine-report*.json" },
  root_markers = { ".git" },
  settings = {},
  on_attach = nil,
}

M.options = vim.deepcopy(defaults)

-- Client ids by root directory, for the 0.7 path.
local clients = {}

local function file_name(bufnr)
  return vim.api.nvim_buf_get_name(bufnr)
end

--- Whether the buffer's file name matches one of the report patterns.
function M.is_report_buffer(bufnr)
  local tail = vim.fn.fnamemodify(file_name(bufnr), ":t")
  for _, pattern in ipairs(M.options.patterns) do
    if vim.fn.match(tail, vim.fn.glob2regpat(pattern)) ~= -1 then
      return true
    end
  end
  return false
end

--- The project root of a buffer: the nearest folder holding a root marker,
--- else the file's own folder.
function M.root_for(bufnr)
  local dir = vim.fn.fnamemodify(file_name(bufnr), ":p:h")
  for _, marker in ipairs(M.options.root_markers) do
    local found = vim.fn.finddir(marker, dir .. ";")
    if found == "" then
      found = vim.fn.findfile(marker, dir .. ";")
    end
    if found ~= "" then
      return vim.fn.fnamemodify(found, ":p:h:h")
    end
  end
  return dir
end

-- The server's own globs, from the patterns: a report anywhere below the
-- root. Nil for the default patterns, which are the server's default globs:
-- a setting sent would hide a project file's `files` (editor settings win).
local function server_globs()
  if vim.deep_equal(M.options.patterns, defaults.patterns) then
    return nil
  end
  local globs = {}
  for _, pattern in ipairs(M.options.patterns) do
    table.insert(globs, "**/" .. pattern)
  end
  return globs
end

local function client_config(root)
  return {
    name = "report_lsp",
    cmd = M.options.cmd,
    root_dir = root,
    -- The settings go both ways: in initializationOptions, read before the
    -- first analysis on every Neovim version, and under the "reportLsp"
    -- section the server asks for with workspace/configuration.
    init_options = vim.tbl_extend("keep", vim.deepcopy(M.options.settings), { files = server_globs() }),
    settings = { reportLsp = M.options.settings },
    on_attach = M.options.on_attach,
  }
end

local warned_missing = false

--- Whether the server command can be run. When it cannot, says so once per
--- session and starts nothing: an error raised from the FileType or
--- BufReadPost autocommand would abort the ones after it (the buffer would
--- be left without a filetype), and every report opened would repeat it.
function M.server_available()
  local program = M.options.cmd[1]
  if program and vim.fn.executable(program) == 1 then
    return true
  end
  if not warned_missing then
    warned_missing = true
    vim.notify(
      ("report-lsp: the server %q was not found; install it (`cargo install --path .` in the report-lsp repository) or set `cmd` in require(\"report_lsp\").setup()"):format(
        tostring(program)
      ),
      vim.log.levels.WARN
    )
  end
  return false
end

--- Attaches the buffer to the client of its root, starting one when needed.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not M.is_report_buffer(bufnr) or not M.server_available() then
    return nil
  end
  local root = M.root_for(bufnr)
  local id = clients[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      vim.notify("report-lsp: could not start " .. table.concat(M.options.cmd, " "), vim.log.levels.ERROR)
      return nil
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

function M.setup(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  warned_missing = false
  local group = vim.api.nvim_create_augroup("report_lsp", { clear = true })

  if vim.lsp.config and vim.lsp.enable then
    -- Neovim 0.11+: the built-in configuration framework attaches and reuses clients.
    local config = client_config(nil)
    config.filetypes = { "json", "jsonc" }
    config.root_dir = function(bufnr, on_dir)
      if M.is_report_buffer(bufnr) then
        on_dir(M.root_for(bufnr))
      end
    end
    vim.lsp.config("report_lsp", config)
    vim.lsp.enable("report_lsp")
    -- vim.lsp.enable skips a command that is not executable without a word:
    -- say it here, once.
    vim.api.nvim_create_autocmd("FileType", {
      group = group,
      pattern = config.filetypes,
      callback = function(args)
        if M.is_report_buffer(args.buf) then
          M.server_available()
        end
      end,
    })
    return
  end

  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    group = group,
    pattern = M.options.patterns,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  -- Reports already open when setup runs.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and file_name(bufnr) ~= "" then
      M.attach(bufnr)
    end
  end
end

return M
