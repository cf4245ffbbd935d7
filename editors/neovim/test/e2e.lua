-- Headless end-to-end test of the plugin against the real server, run by
-- tests/neovim.rs:
--   nvim --headless -u NONE --cmd "set rtp+=editors/neovim" -l? (0.7: -c "luafile ...")
-- Reads REPORT_LSP_BIN, REPORT_LSP_FILE, REPORT_LSP_FIXED and REPORT_LSP_OUT from the environment,
-- writes what it observed as JSON to REPORT_LSP_OUT, and quits.

local out = {}
local function finish(err)
  out.error = err
  local f = io.open(os.getenv("REPORT_LSP_OUT"), "w")
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  require("report_lsp").setup({ cmd = { os.getenv("REPORT_LSP_BIN") } })
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("REPORT_LSP_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()

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
      if item[2].kind == "source.fixAll.report-lsp" then
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
