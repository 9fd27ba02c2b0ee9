-- scripts/make-bench-capture --dense-mb: wrk request mix of small API calls (issue 18). Per 20 requests:
-- 12 GETs of gzip JSON of 1-10 KB gzipped (dense/item-K.json), 4 conditional GETs of the same files that get
-- 304 (If-None-Match with nginx's ETag, or If-Modified-Since with the files' mtime), 2 tiny JSON POSTs
-- (/upload, proxied to the sink: 201), 2 tiny JSON API answers (/api/status). WT_DENSE_ETAGS names
-- the file of "PATH ETAG" lines scripts/lib/dense-bench.py writes.
-- The requests are built on the first call: wrk.format adds the Host header from wrk.host, which is
-- not set yet while the script is loaded (requests without Host get 400 and a closed connection).
local reqs = nil
local function build()
  local files = {}
  for line in io.lines(os.getenv("WT_DENSE_ETAGS")) do
    local path, etag = line:match("^(%S+) (.+)$")
    files[#files + 1] = {path = path, etag = etag}
  end
  local gz = {["Accept-Encoding"] = "gzip"}
  local since = "Tue, 14 Nov 2023 22:13:20 GMT"
  local body = '{"event":"tap","screen":"feed","item":4711,"ts":1764201600}'
  reqs = {}
  for k, f in ipairs(files) do
    for _ = 1, 3 do reqs[#reqs + 1] = wrk.format("GET", f.path, gz) end
    if k % 2 == 0 then
      reqs[#reqs + 1] = wrk.format("GET", f.path, {["Accept-Encoding"] = "gzip", ["If-None-Match"] = f.etag})
    else
      reqs[#reqs + 1] = wrk.format("GET", f.path, {["Accept-Encoding"] = "gzip", ["If-Modified-Since"] = since})
    end
    if k % 2 == 0 then
      reqs[#reqs + 1] = wrk.format("POST", "/upload/events", {["Content-Type"] = "application/json"}, body)
    else
      reqs[#reqs + 1] = wrk.format("GET", "/api/status", gz)
    end
  end
end
local i = 0
request = function()
  if not reqs then build() end
  i = i + 1
  return reqs[(i * 7) % #reqs + 1]   -- 7 is coprime with the 5 * 64 requests: interleaved
end
