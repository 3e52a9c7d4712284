-- wrk script: each request a random position of Oware (or any 6-pit variant) with 0..20 seeds,
-- seeds dropped one by one into random pits, stores 0,0.
-- Usage: wrk -t2 -c256 -d30s --latency -s random_positions.lua http://127.0.0.1:8080
-- Environment: SOWDB_VARIANT (default oware/6x4), SOWDB_PITS (default 12), SOWDB_MAX_SEEDS
-- (default 20).
local variant = os.getenv("SOWDB_VARIANT") or "oware/6x4"
local pits = tonumber(os.getenv("SOWDB_PITS") or "12")
local max_seeds = tonumber(os.getenv("SOWDB_MAX_SEEDS") or "20")

function setup(thread)
  thread:set("seed", math.random(1, 1000000))
end

function init(args)
  math.randomseed(seed)
end


request = function()
  local board = {}
  for i = 1, pits do
    board[i] = 0
  end
  for _ = 1, math.random(0, max_seeds) do
    local p = math.random(1, pits)
    board[p] = board[p] + 1
  end
  return wrk.format("GET", "/api/v1/position?variant=" .. variant .. "&board=" ..
                    table.concat(board, ",") .. "&stores=0,0")
end
