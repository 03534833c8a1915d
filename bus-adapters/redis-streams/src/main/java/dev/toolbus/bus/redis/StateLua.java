package dev.toolbus.bus.redis;

/**
 * The Lua every turn-state script starts with. Each facet ({@code j} journal, {@code r} requests,
 * {@code h} held answers, {@code g} grants, {@code c} cut results) keeps, beside its records, an index
 * of them under its namespace {@code ns}: {@code <ns><f>:idx} (sorted set: member → expiry, Redis
 * time in ms), {@code <ns><f>:w} (hash: member → estimated bytes) and {@code <ns><f>:bytes} (their
 * sum). A record's key is {@code <ns><f>:<member>}, its member a hash of its ids (or a request id).
 * The index is what bounds a facet (its count and bytes are read in the same script that adds a
 * record) and what the gauges read; its entries past their expiry are dropped as scripts pass by (at
 * most {@value #TRIM} per call), the records themselves expire by their TTL.
 */
final class StateLua {

    /** Expired index entries dropped per script call, at most. */
    static final int TRIM = 512;

    static final String PRELUDE = """
            local function now_ms()
              local t = redis.call('TIME')
              return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            end
            local function ix(ns, f)
              return {ns .. f .. ':idx', ns .. f .. ':w', ns .. f .. ':bytes', ns .. f .. ':'}
            end
            local function ix_put(f, m, expires, weight)
              local old = redis.call('HGET', f[2], m)
              redis.call('INCRBY', f[3], weight - (tonumber(old) or 0))
              redis.call('HSET', f[2], m, weight)
              redis.call('ZADD', f[1], expires, m)
            end
            local function ix_del(f, m)
              local old = redis.call('HGET', f[2], m)
              if not old then
                return false
              end
              redis.call('DECRBY', f[3], tonumber(old))
              redis.call('HDEL', f[2], m)
              redis.call('ZREM', f[1], m)
              return true
            end
            local function ix_trim(f, now)
              local gone = redis.call('ZRANGEBYSCORE', f[1], '-inf', now, 'LIMIT', 0, %d)
              for _, m in ipairs(gone) do
                ix_del(f, m)
              end
            end
            local function ix_count(f)
              return redis.call('ZCARD', f[1])
            end
            local function ix_bytes(f)
              return tonumber(redis.call('GET', f[3]) or '0')
            end
            local function full(what, f, max_n, max_b)
              return redis.error_reply('TOOLBUS_STATE_FULL the ' .. what .. ' holds ' .. ix_count(f) .. ' records, '
                .. ix_bytes(f) .. ' estimated bytes, of at most ' .. max_n .. ' and ' .. max_b)
            end
            """.formatted(TRIM);

    private StateLua() {
    }

    /** The prelude, then the body. */
    static String script(String body) {
        return PRELUDE + body;
    }
}
