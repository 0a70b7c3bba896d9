-- wrk script of Deploy/bench/contacts.sh: each request a path taken at random from a file, a line each
-- (`wrk ... -s contacts.lua URL -- PATHS`), and at the end one line of shell assignments: the latency
-- percentiles in milliseconds, the requests, and those that were not 2xx or 3xx or failed.
local paths = {}
local threads = 0

function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end

function init(args)
    for line in io.lines(args[1]) do
        paths[#paths + 1] = line
    end
    math.randomseed(os.time() * 100 + id)
end

function request()
    return wrk.format("GET", paths[math.random(#paths)])
end

function done(summary, latency, requests)
    local errors = summary.errors
    io.write(string.format(
        "p50_ms=%.1f p95_ms=%.1f p99_ms=%.1f max_ms=%.1f requests=%d not_2xx=%d socket_errors=%d\n",
        latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
        latency.max / 1000, summary.requests, errors.status,
        errors.connect + errors.read + errors.write + errors.timeout))
end
