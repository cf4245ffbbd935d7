-- report-lsp for Neovim: starts (or reuses, one per root) the report-lsp
-- language server for machine report files, and attaches the Markdown
-- files under a root whose server runs, which the reports name (their
-- entries show there as code lenses and hints).
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
--
-- Commands (plugin/report_lsp.lua defines them, and setup() again):
--   :ReportLspSummary   the report's summary, as Markdown, in a scratch buffer

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

--- Whether the buffer's file name matches one of the report patterns
--- (a buffer that is not a file's, such as a summary, never does).
function M.is_report_buffer(bufnr)
  if vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local tail = vim.fn.fnamemodify(file_name(bufnr), ":t")
  for _, pattern in ipairs(M.options.patterns) do
    if vim.fn.match(tail, vim.fn.glob2regpat(pattern)) ~= -1 then
      return true
    end
  end
  return false
end

--- Whether the buffer is a document a report may name (Markdown): the
--- server shows the reports' entries on it.
function M.is_target_buffer(bufnr)
  if vim.bo[bufnr].buftype ~= "" then
    return false
  end
  return vim.bo[bufnr].filetype == "markdown" or file_name(bufnr):match("%.md$") ~= nil
end

--- Whether `path` lies in the folder `root`.
local function inside(path, root)
  if not root then
    return false
  end
  local prefix = root:sub(-1) == "/" and root or (root .. "/")
  return path:sub(1, #prefix) == prefix
end

--- The root of a running report-lsp client that holds the buffer's file:
--- a target document joins the server of the reports around it, and none
--- is started for Markdown alone.
function M.running_root_for(bufnr)
  local path = vim.fn.fnamemodify(file_name(bufnr), ":p")
  local running = vim.lsp.get_clients and vim.lsp.get_clients({ name = "report_lsp" })
    or vim.lsp.get_active_clients({ name = "report_lsp" })
  for _, client in ipairs(running) do
    -- 0.7's get_active_clients takes no filter: every client comes.
    local root = client.name == "report_lsp" and (client.root_dir or (client.config and client.config.root_dir))
    if type(root) == "string" and inside(path, root) then
      return root
    end
  end
  return nil
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
  if M.is_target_buffer(bufnr) then
    local root = M.running_root_for(bufnr)
    local id = root and clients[root]
    if id then
      vim.lsp.buf_attach_client(bufnr, id)
    end
    return id
  end
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

--- Defines the user commands.
function M.create_commands()
  vim.api.nvim_create_user_command("ReportLspSummary", function()
    require("report_lsp.summary").open(0)
  end, { desc = "report-lsp: the report's summary (report-lsp/summary), as Markdown, in a scratch buffer" })
end

function M.setup(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  M.create_commands()
  warned_missing = false
  local group = vim.api.nvim_create_augroup("report_lsp", { clear = true })

  if vim.lsp.config and vim.lsp.enable then
    -- Neovim 0.11+: the built-in configuration framework attaches and reuses clients.
    local config = client_config(nil)
    config.filetypes = { "json", "jsonc", "markdown" }
    config.root_dir = function(bufnr, on_dir)
      if M.is_report_buffer(bufnr) then
        on_dir(M.root_for(bufnr))
      elseif M.is_target_buffer(bufnr) then
        local root = M.running_root_for(bufnr)
        if root then
          on_dir(root)
        end
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

  local patterns = vim.list_extend(vim.deepcopy(M.options.patterns), { "*.md" })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    group = group,
    pattern = patterns,
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
