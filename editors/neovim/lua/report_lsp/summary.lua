-- :ReportLspSummary: the reviewer's view of the report in the current
-- buffer, asked of its report-lsp server with one request,
--
--   report-lsp/summary { uri, format = "markdown" }
--     -> { format, content, entries = { { index, range } }, fromDisk }
--
-- and shown as Markdown in a scratch buffer, in a split. In that buffer,
-- `gd` or <CR> on a line naming `entries[N]` goes to that entry in the
-- report (the answer's `entries` give each one's range). Works on Neovim
-- 0.7 (client.request) and 0.11+ (client:request). Nothing here raises an
-- error: what goes wrong is said with vim.notify (a warning when it is
-- said at once, inside the command: an error there would abort a script
-- that runs it).

local M = {}

local METHOD = "report-lsp/summary"

local function notify(message, level)
  vim.notify("report-lsp: " .. message, level or vim.log.levels.ERROR)
end

-- Whether this Neovim has the 0.11 API (client:request, the new
-- vim.str_byteindex signature).
local function has_0_11()
  return vim.fn.has("nvim-0.11") == 1
end

--- The report-lsp client attached to the buffer, if any.
function M.client_for(bufnr)
  local attached
  if vim.lsp.get_clients then
    attached = vim.lsp.get_clients({ bufnr = bufnr, name = "report_lsp" })
  else
    attached = {}
    for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
      table.insert(attached, client)
    end
  end
  for _, client in ipairs(attached) do
    if client.name == "report_lsp" then
      return client
    end
  end
  return nil
end

-- Summary buffers by name, reused when asked again.
local buffers = {}

--- The byte column of an LSP position on `line`, in the client's encoding.
local function byte_column(line, character, encoding)
  if encoding == "utf-8" then
    return math.min(character, #line)
  end
  local ok, col
  if has_0_11() then
    ok, col = pcall(vim.str_byteindex, line, encoding or "utf-16", character, false)
  else
    ok, col = pcall(vim.str_byteindex, line, character, encoding ~= "utf-32")
  end
  return ok and col or math.min(character, #line)
end

--- The entry index `entries[N]` under the cursor, else the first on its line.
local function entry_under_cursor()
  local line = vim.api.nvim_get_current_line()
  local col = vim.api.nvim_win_get_cursor(0)[2] + 1
  local first
  local init = 1
  while true do
    local s, e, n = line:find("entries%[(%d+)%]", init)
    if not s then
      break
    end
    first = first or tonumber(n)
    if col >= s and col <= e then
      return tonumber(n)
    end
    init = e + 1
  end
  return first
end

--- Goes from the summary buffer to the entry named on the cursor's line.
function M.jump()
  local info = vim.b.report_lsp_summary
  if type(info) ~= "table" then
    return notify("not a report summary buffer", vim.log.levels.WARN)
  end
  local index = entry_under_cursor()
  if not index then
    return notify("no entries[N] on this line", vim.log.levels.INFO)
  end
  local range
  for _, entry in ipairs(info.entries or {}) do
    if entry.index == index then
      range = entry.range
      break
    end
  end
  if not range then
    return notify(("entries[%d] has no place in the summary's answer"):format(index), vim.log.levels.WARN)
  end
  local report = vim.uri_to_bufnr(info.uri)
  local summary_win = vim.api.nvim_get_current_win()
  -- A window showing the report, else the one we came from, else a split:
  -- the summary's own window keeps the summary (it is wiped when hidden).
  local win = vim.fn.bufwinid(report)
  if win == -1 then
    vim.cmd("wincmd p")
    win = vim.api.nvim_get_current_win()
    if win == summary_win then
      vim.cmd("split")
      win = vim.api.nvim_get_current_win()
    end
  end
  vim.api.nvim_set_current_win(win)
  vim.cmd("normal! m'")
  if vim.api.nvim_win_get_buf(win) ~= report then
    vim.fn.bufload(report)
    vim.bo[report].buflisted = true
    vim.api.nvim_win_set_buf(win, report)
  end
  local lnum = math.min(range.start.line + 1, vim.api.nvim_buf_line_count(report))
  local text = vim.api.nvim_buf_get_lines(report, lnum - 1, lnum, false)[1] or ""
  vim.api.nvim_win_set_cursor(win, { lnum, byte_column(text, range.start.character, info.encoding) })
end

--- The scratch buffer's name: report-summary://<the report, relative to the cwd>.
local function buffer_name(bufnr)
  local file = vim.api.nvim_buf_get_name(bufnr)
  return "report-summary://" .. vim.fn.fnamemodify(file, ":~:.")
end

--- Shows `result` (the server's answer) for the report `bufnr` in a scratch
--- buffer, in a split (or the window already showing it); returns the buffer.
function M.show(bufnr, result, encoding)
  local name = buffer_name(bufnr)
  local buf = buffers[name]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    buffers[name] = buf
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
    -- Another buffer may hold the name (one wiped keeps it until it goes).
    pcall(vim.api.nvim_buf_set_name, buf, name)
    local opts = { buffer = buf, silent = true, desc = "report-lsp: go to the entry" }
    vim.keymap.set("n", "gd", M.jump, opts)
    vim.keymap.set("n", "<CR>", M.jump, opts)
  end
  local content = type(result.content) == "string" and result.content or vim.fn.json_encode(result.content)
  local lines = vim.split(content, "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.api.nvim_buf_set_var(buf, "report_lsp_summary", {
    uri = vim.uri_from_bufnr(bufnr),
    entries = result.entries or {},
    encoding = encoding,
    from_disk = result.fromDisk,
  })
  if vim.bo[buf].filetype ~= "markdown" then
    vim.bo[buf].filetype = "markdown"
  end
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd("split")
    vim.api.nvim_win_set_buf(0, buf)
  end
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  return buf
end

--- :ReportLspSummary: asks the server of the current buffer for its
--- summary, as Markdown, and shows it. `done(buf_or_nil)` is called at the end
--- (for tests and scripts).
function M.open(bufnr, done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  done = done or function() end
  local client = M.client_for(bufnr)
  if not client then
    notify(
      "no report-lsp server is attached to this buffer: open a machine report (*.report.json, machine-report*.json) and run :ReportLspSummary there",
      vim.log.levels.WARN
    )
    return done(nil)
  end
  -- Right after the report is opened the server may still be starting.
  if not client.initialized then
    vim.wait(10000, function()
      if client.initialized then
        return true
      end
      local ok, stopped = pcall(function()
        if has_0_11() then
          return client:is_stopped()
        end
        return client.is_stopped()
      end)
      return ok and stopped
    end, 50)
  end
  local params = { uri = vim.uri_from_bufnr(bufnr), format = "markdown" }
  local function handler(err, result)
    if err then
      notify("no summary: " .. tostring(err.message or err))
      return done(nil)
    end
    if type(result) ~= "table" or result.content == nil then
      notify("no summary: the server gave no answer")
      return done(nil)
    end
    local ok, shown = pcall(M.show, bufnr, result, client.offset_encoding)
    if not ok then
      notify("could not show the summary: " .. tostring(shown))
      return done(nil)
    end
    done(shown)
  end
  local ok, sent
  if has_0_11() then
    ok, sent = pcall(client.request, client, METHOD, params, handler, bufnr)
  else
    ok, sent = pcall(client.request, METHOD, params, handler, bufnr)
  end
  if not ok or not sent then
    notify("could not ask the server for the summary" .. (ok and "" or (": " .. tostring(sent))), vim.log.levels.WARN)
    return done(nil)
  end
end

return M
