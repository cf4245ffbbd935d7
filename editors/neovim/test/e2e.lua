-- Headless end-to-end test of the plugin against the real server, run by
-- tests/neovim.rs on each Neovim it finds:
--   nvim --headless --clean --cmd "set rtp+=editors/neovim" -c "luafile editors/neovim/test/e2e.lua"
-- (--clean, not -u NONE: filetype detection stays on, as a user has it, and
-- 0.11's vim.lsp.enable attaches on the FileType event.)
-- Reads REPORT_LSP_BIN, REPORT_LSP_FILE, REPORT_LSP_FIXED and REPORT_LSP_OUT from the environment,
-- and REPORT_LSP_MODE:
--   plugin    (default) require("report_lsp").setup(), then diagnostics, hover, a quick fix, fix-all
--   lspconfig the same through the shipped lsp/report_lsp.lua and vim.lsp.enable alone (0.11+;
--             report-lsp on PATH)
--   settings  setup() with the settings in REPORT_LSP_SETTINGS (JSON); records the diagnostics
--   missing   setup() with a server that does not exist; records the messages and the buffer's state
--   target    setup(), the report open, then the Markdown file REPORT_LSP_TARGET it names: records
--             its code lenses and hints, runs the first lens and records where it leads
--   symbols   setup(), then vim.lsp.buf.workspace_symbol(REPORT_LSP_QUERY) once the server has found
--             REPORT_LSP_SYMBOLS symbols; records the quickfix list it fills
--   summary   setup(), then :ReportLspSummary on the report: records the scratch buffer it opens
--             (lines, options, name), presses gd on its first `entries[N]` line and records
--             where it leads, then runs the command in a buffer no server serves, and in
--             the Markdown file REPORT_LSP_TARGET beside the report, and records the messages
-- writes what it observed as JSON to REPORT_LSP_OUT, and quits.

local out = {}
local function finish(err)
  out.error = err
  local f = io.open(os.getenv("REPORT_LSP_OUT"), "w")
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qall!")
end

-- The clients attached to a buffer: get_clients from 0.10 (0.11 warns about
-- the old name), buf_get_clients before.
local function buffer_clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr })
  end
  local list = {}
  for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
    table.insert(list, client)
  end
  return list
end

local mode = os.getenv("REPORT_LSP_MODE") or "plugin"
out.version = tostring(vim.version().major) .. "." .. tostring(vim.version().minor)

local ok, err = pcall(function()
  local cmd = { os.getenv("REPORT_LSP_BIN") }
  if mode == "lspconfig" then
    -- vim.lsp.enable alone: the shipped lsp/report_lsp.lua runs report-lsp from PATH.
    vim.lsp.enable("report_lsp")
  elseif mode == "settings" then
    require("report_lsp").setup({ cmd = cmd, settings = vim.fn.json_decode(os.getenv("REPORT_LSP_SETTINGS")) })
  else
    require("report_lsp").setup({ cmd = cmd })
  end
  -- Which of the plugin's two paths this Neovim takes.
  out.path = (vim.lsp.config and vim.lsp.enable) and "vim.lsp.config" or "start_client"
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("REPORT_LSP_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[bufnr].filetype

  if mode == "symbols" then
    local query = os.getenv("REPORT_LSP_QUERY")
    local wanted = tonumber(os.getenv("REPORT_LSP_SYMBOLS"))
    assert(vim.wait(15000, function()
      return #buffer_clients(bufnr) > 0
    end, 50), "no client within 15 s")
    -- The server finds the unopened reports on its own thread: asked until it has.
    assert(vim.wait(30000, function()
      local replies = vim.lsp.buf_request_sync(bufnr, "workspace/symbol", { query = query }, 5000)
      for _, reply in pairs(replies or {}) do
        if reply.result and #reply.result >= wanted then
          return true
        end
      end
      return false
    end, 200), "fewer than " .. wanted .. " workspace symbols within 30 s")
    -- What a user runs: the results land in the quickfix list, opened.
    vim.lsp.buf.workspace_symbol(query)
    assert(vim.wait(10000, function()
      return #vim.fn.getqflist() > 0
    end, 50), "no quickfix list within 10 s")
    out.symbols = {}
    for _, item in ipairs(vim.fn.getqflist()) do
      table.insert(out.symbols, {
        file = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ":t"),
        line = item.lnum - 1,
        col = item.col - 1,
        text = item.text,
      })
    end
    out.quickfix_open = vim.fn.getqflist({ winid = 0 }).winid ~= 0
    return
  end

  if mode == "summary" then
    assert(vim.wait(15000, function()
      return #buffer_clients(bufnr) > 0
    end, 50), "no client for the report within 15 s")
    local report_name = vim.api.nvim_buf_get_name(bufnr)
    out.command_exists = vim.fn.exists(":ReportLspSummary") == 2
    vim.cmd("ReportLspSummary")
    assert(vim.wait(15000, function()
      return vim.api.nvim_get_current_buf() ~= bufnr and vim.b.report_lsp_summary ~= nil
    end, 50), "no summary buffer within 15 s")
    local summary = vim.api.nvim_get_current_buf()
    out.summary = {
      name = vim.api.nvim_buf_get_name(summary),
      lines = vim.api.nvim_buf_get_lines(summary, 0, -1, false),
      filetype = vim.bo[summary].filetype,
      buftype = vim.bo[summary].buftype,
      bufhidden = vim.bo[summary].bufhidden,
      swapfile = vim.bo[summary].swapfile,
      modifiable = vim.bo[summary].modifiable,
      windows = #vim.api.nvim_tabpage_list_wins(0),
      report_shown = vim.fn.bufwinid(bufnr) ~= -1,
    }
    -- gd on the first line naming an entry, its cursor at the line's start:
    -- the entry in the report.
    for i, line in ipairs(out.summary.lines) do
      if line:find("entries%[%d+%]") then
        vim.api.nvim_win_set_cursor(0, { i, 0 })
        out.jump_from = line
        break
      end
    end
    vim.cmd("normal gd")
    out.jumped_to = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ":t")
    out.jumped_to_report = vim.api.nvim_buf_get_name(0) == report_name
    out.cursor_line = vim.api.nvim_win_get_cursor(0)[1] - 1
    out.cursor_col = vim.api.nvim_win_get_cursor(0)[2]
    out.summary_still_open = vim.api.nvim_buf_is_valid(summary) and vim.fn.bufwinid(summary) ~= -1
    -- Again: the same buffer, shown where it is, no new window.
    vim.cmd("ReportLspSummary")
    vim.wait(15000, function()
      return vim.api.nvim_get_current_buf() == summary
    end, 50)
    out.again_same_buffer = vim.api.nvim_get_current_buf() == summary
    out.again_windows = #vim.api.nvim_tabpage_list_wins(0)
    -- In a buffer no server serves: a message, no Lua error.
    vim.cmd("new")
    vim.cmd("messages clear")
    vim.cmd("ReportLspSummary")
    out.messages = vim.fn.execute("messages")
    -- In a Markdown file the server serves (REPORT_LSP_TARGET, beside the
    -- report) but which is no report: the server's refusal, as a message.
    vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("REPORT_LSP_TARGET")))
    local target = vim.api.nvim_get_current_buf()
    assert(vim.wait(15000, function()
      return #buffer_clients(target) > 0
    end, 50), "the Markdown file was not attached within 15 s")
    vim.cmd("messages clear")
    vim.cmd("ReportLspSummary")
    vim.wait(15000, function()
      return vim.fn.execute("messages"):find("report-lsp:", 1, true) ~= nil
    end, 50)
    out.target_messages = vim.fn.execute("messages")
    out.target_windows = #vim.api.nvim_tabpage_list_wins(0)
    return
  end

  if mode == "target" then
    -- The report is open; now the Markdown file it names.
    assert(vim.wait(15000, function()
      return #buffer_clients(bufnr) > 0
    end, 50), "no client for the report within 15 s")
    local report_name = vim.api.nvim_buf_get_name(bufnr)
    vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("REPORT_LSP_TARGET")))
    local target = vim.api.nvim_get_current_buf()
    assert(vim.wait(15000, function()
      return #buffer_clients(target) > 0
    end, 50), "the Markdown file was not attached within 15 s")
    -- The lenses, as a user gets them: refreshed, then read.
    local lenses = {}
    assert(vim.wait(20000, function()
      if vim.lsp.codelens.refresh then
        pcall(vim.lsp.codelens.refresh, { bufnr = target })
      end
      lenses = vim.lsp.codelens.get(target)
      return #lenses > 0
    end, 200), "no code lens within 20 s")
    out.lenses = {}
    for _, lens in ipairs(lenses) do
      table.insert(out.lenses, { line = lens.range.start.line, title = lens.command and lens.command.title })
    end
    -- The hint over the span the clean removes.
    assert(vim.wait(10000, function()
      return #vim.diagnostic.get(target) > 0
    end, 50), "no hint within 10 s")
    out.hints = {}
    for _, d in ipairs(vim.diagnostic.get(target)) do
      table.insert(out.hints, { line = d.lnum, end_line = d.end_lnum, severity = d.severity, message = d.message })
    end
    -- Run the lens on its line: the server asks Neovim to show the entry.
    -- A Neovim that shows no document for a server (0.7) gets a title whose
    -- command does nothing (run all the same, as a click runs it): go to
    -- definition leads there.
    vim.api.nvim_win_set_cursor(0, { out.lenses[1].line + 1, 0 })
    out.lens_command = lenses[1].command and lenses[1].command.command
    vim.lsp.codelens.run()
    if out.lens_command ~= "report-lsp.showEntry" then
      vim.lsp.buf.definition()
    end
    assert(vim.wait(10000, function()
      return vim.api.nvim_buf_get_name(0) == report_name
    end, 50), "the lens did not lead to the report within 10 s")
    out.jumped_to = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ":t")
    out.cursor_line = vim.api.nvim_win_get_cursor(0)[1] - 1
    out.cursor_text = vim.api.nvim_get_current_line()
    return
  end

  if mode == "missing" then
    -- Give any asynchronous error the time to show.
    vim.wait(1000, function()
      return false
    end, 50)
    out.messages = vim.fn.execute("messages")
    out.clients = #buffer_clients(bufnr)
    vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { "typed" })
    out.first_line = vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1]
    return
  end

  local function code_of(d)
    return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  end
  local function diagnostics()
    local list = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      table.insert(list, { line = d.lnum, col = d.col, code = code_of(d) })
    end
    table.sort(list, function(a, b)
      return a.line < b.line or (a.line == b.line and a.col < b.col)
    end)
    return list
  end

  assert(vim.wait(15000, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 50), "no diagnostics within 15 s")
  out.before = diagnostics()
  local clients = buffer_clients(bufnr)
  out.client = clients[1] and clients[1].name
  if mode == "settings" then
    return
  end

  -- The first wrong safety_tier.
  local tier
  for _, d in ipairs(out.before) do
    if d.code == "tier-mismatch" then
      tier = d
      break
    end
  end
  assert(tier, "no tier-mismatch diagnostic")
  out.tier_line = tier.line

  local uri = vim.uri_from_bufnr(bufnr)
  local position = { line = tier.line, character = tier.col + 1 }

  local hover = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
    textDocument = { uri = uri },
    position = position,
  }, 10000)
  for _, response in pairs(hover or {}) do
    if response.result then
      out.hover = response.result.contents.value
    end
  end

  -- Completion inside the tier's string offers the derived tier; go to
  -- definition from the first entry's path lands on its shortlist item.
  local completion = vim.lsp.buf_request_sync(bufnr, "textDocument/completion", {
    textDocument = { uri = uri },
    position = position,
  }, 10000)
  out.completion = {}
  for _, response in pairs(completion or {}) do
    local items = response.result and (response.result.items or response.result) or {}
    for _, item in ipairs(items) do
      table.insert(out.completion, item.label)
    end
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local entries_line
  for i, line in ipairs(lines) do
    if line:find('"entries"', 1, true) then
      entries_line = i
      break
    end
  end
  for i = entries_line, #lines do
    local col = lines[i]:find('"path": "', 1, true)
    if col then
      out.path_line = i - 1
      local definition = vim.lsp.buf_request_sync(bufnr, "textDocument/definition", {
        textDocument = { uri = uri },
        position = { line = i - 1, character = col + 9 },
      }, 10000)
      for _, response in pairs(definition or {}) do
        local target = response.result and (response.result[1] or response.result)
        if target and target.range then
          out.definition_line = target.range.start.line
        end
      end
      break
    end
  end

  -- The server finds the diagnostics under the range itself; context.diagnostics may stay empty.
  local actions = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", {
    textDocument = { uri = uri },
    range = { start = position, ["end"] = position },
    context = { diagnostics = {} },
  }, 10000)
  local applied
  for _, response in pairs(actions or {}) do
    for _, action in ipairs(response.result or {}) do
      if not applied and action.title:find("Set safety_tier to", 1, true) then
        vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
        applied = action.title
      end
    end
  end
  assert(applied, "no tier fix offered")
  out.applied = applied
  vim.cmd("write")

  assert(vim.wait(15000, function()
    for _, d in ipairs(diagnostics()) do
      if d.line == tier.line and d.code == "tier-mismatch" then
        return false
      end
    end
    return true
  end, 50), "the tier-mismatch diagnostic did not go away")
  out.after = diagnostics()

  -- Fix all, as a user would: the action is picked from the menu, and
  -- Neovim asks the server for its edit (codeAction/resolve).
  vim.ui.select = function(items, _, on_choice)
    for i, item in ipairs(items) do
      -- 0.10+ passes { action = ..., ctx = ... }; 0.7 passes { client_id, action }.
      local action = item.action or item[2]
      if action.kind == "source.fixAll.report-lsp" then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
  local tick = vim.api.nvim_buf_get_changedtick(bufnr)
  vim.lsp.buf.code_action({ only = { "source.fixAll" }, diagnostics = {} })
  assert(vim.wait(15000, function()
    return vim.api.nvim_buf_get_changedtick(bufnr) ~= tick
  end, 50), "fix-all changed nothing")
  vim.cmd("write " .. vim.fn.fnameescape(os.getenv("REPORT_LSP_FIXED")))
  out.fixed_all = true
end)

finish(not ok and tostring(err) or nil)
