-- a mixed workload: recursion, tables, strings, closures, sorting
local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end
local t = {}
for i = 1, 200000 do t[i] = (i * 7919) % 100003 end
table.sort(t)
local parts = {}
for i = 1, 50000 do parts[#parts+1] = string.format("%d:%s", i, tostring(i*3)) end
local s = table.concat(parts, ",")
local count = 0
for w in s:gmatch("%d+") do count = count + 1 end
print(fib(27), #s, count, t[1000])
