-- scripts/make-bench-capture: wrk request mix. Per 32 requests: 20 gzip JSON (data.json, ~40 KB
-- gzipped), 10 small HTML (index.html), 1 small.txt, 1 x 1 MB blob (identity).
-- The requests are built on the first call: wrk.format adds the Host header from wrk.host, which is
-- not set yet while the script is loaded (requests without Host get 400 and a closed connection).
local reqs = nil
local function build()
  reqs = {}
  local function add(n, path, hdrs)
    for _ = 1, n do reqs[#reqs + 1] = wrk.format("GET", path, hdrs) end
  end
  add(20, "/data.json", {["Accept-Encoding"] = "gzip"})
  add(10, "/index.html")
  add(1, "/small.txt")
  add(1, "/blob.bin")
end
local i = 0
request = function()
  if not reqs then build() end
  i = i + 1
  return reqs[(i * 7) % #reqs + 1]   -- 7 is coprime with 32: interleaved, every request hit
end
