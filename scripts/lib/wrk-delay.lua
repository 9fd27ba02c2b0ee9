-- Bounds wrk: each connection waits 100 ms between requests, rotating over a few small URLs.
local paths = {"/index.html", "/small.txt", "/nocontent", "/index.html"}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
delay = function() return 100 end
