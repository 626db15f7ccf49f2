"""perfetto_decode.py - an independent reader of Perfetto trace files for the tests: the
protobuf wire format by hand (no protobuf library, no flightrec code), the packets of a
Trace, their sequences' incremental state (interned names valid after a packet that
clears the state), track descriptors, and slices rebuilt from their begin and end on
each track. Field numbers: tests/data/perfetto/perfetto_trace.proto."""
import collections
import json

# ------------------------------------------------------------------ wire format
def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i
        if shift > 63:
            raise ValueError("varint too long at %d" % i)


def fields(b):
    """(field number, wire type, value) of a message: ints for varints and fixed64,
    bytes for length-delimited fields."""
    out, i = [], 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
            if i > len(b):
                raise ValueError("length past the end")
        elif wt == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, v))
    return out


def msg(b):
    d = collections.defaultdict(list)
    for num, _, v in fields(b):
        d[num].append(v)
    return d


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def annotations(te):
    out = {}
    for a in te[4]:
        a = msg(a)
        name = a[10][0].decode()
        if 6 in a:
            out[name] = a[6][0].decode()
        elif 3 in a:
            out[name] = a[3][0]
        elif 4 in a:
            out[name] = signed(a[4][0])
        elif 2 in a:
            out[name] = bool(a[2][0])
        elif 9 in a:
            out[name] = json.loads(a[9][0])
        else:
            out[name] = None
    return out


class Decoded:
    """errors: what breaks Perfetto's rules; clock: ClockSnapshot clock id -> timestamp;
    tracks: uuid -> descriptor; slices: track uuid -> [(name, start, end, depth, args)];
    instants: (track, name, ts, categories, args)."""

    def __init__(self, path):
        data = open(path, "rb").read()
        self.clock = {}
        self.tracks = {}          # uuid -> descriptor dict
        self.slices = collections.defaultdict(list)   # track uuid -> [(name, start, end, depth, args)]
        self.instants = []        # (track, name, ts, category, args)
        self.errors = []
        names, cats = {}, {}
        cleared = set()
        open_ = collections.defaultdict(list)
        last_ts = collections.defaultdict(int)
        for num, wt, pkt in fields(data):
            if num != 1 or wt != 2:
                self.errors.append("Trace field %d is not a packet" % num)
                continue
            p = msg(pkt)
            seq = p[10][0] if 10 in p else None
            flags = p[13][0] if 13 in p else 0
            if flags & 1:
                cleared.add(seq)
                names.pop(seq, None)
                cats.pop(seq, None)
            if flags & 2 and seq not in cleared:
                self.errors.append("packet needs incremental state before it was cleared")
            for idata in p.get(12, []):
                d = msg(idata)
                for e in d.get(2, []):
                    e = msg(e)
                    names.setdefault(seq, {})[e[1][0]] = e[2][0].decode()
                for e in d.get(1, []):
                    e = msg(e)
                    cats.setdefault(seq, {})[e[1][0]] = e[2][0].decode()
            if 6 in p:
                cs = msg(p[6][0])
                for c in cs[1]:
                    c = msg(c)
                    self.clock[c[1][0]] = c[2][0]
                self.primary = cs[2][0] if 2 in cs else None
            if 60 in p:
                td = msg(p[60][0])
                desc = {"parent": td[5][0] if 5 in td else None,
                        "name": td[2][0].decode() if 2 in td else None}
                if 3 in td:
                    pd = msg(td[3][0])
                    desc["pid"] = pd[1][0]
                    desc["process_name"] = pd[6][0].decode() if 6 in pd else None
                if 4 in td:
                    thd = msg(td[4][0])
                    desc["pid"], desc["tid"] = thd[1][0], thd[2][0]
                    desc["thread_name"] = thd[5][0].decode() if 5 in thd else None
                self.tracks[td[1][0]] = desc
            if 11 in p:
                te = msg(p[11][0])
                ts = p[8][0]
                track = te[11][0]
                typ = te[9][0]
                if track not in self.tracks:
                    self.errors.append("event on track %d before its descriptor" % track)
                if ts < last_ts[track]:
                    self.errors.append("timestamps go back on track %d" % track)
                last_ts[track] = ts
                name = None
                if 10 in te:
                    name = names.get(seq, {}).get(te[10][0])
                    if name is None:
                        self.errors.append("name iid %d not interned" % te[10][0])
                cat = [cats.get(seq, {}).get(c) for c in te.get(3, [])]
                args = annotations(te)
                if typ == 1:
                    open_[track].append([name, ts, args])
                elif typ == 2:
                    if not open_[track]:
                        self.errors.append("slice end without a begin on track %d" % track)
                        continue
                    name0, start, args0 = open_[track].pop()
                    args0.update(args)
                    self.slices[track].append((name0, start, ts, len(open_[track]), args0))
                elif typ == 3:
                    self.instants.append((track, name, ts, cat, args))
        for track, st in open_.items():
            if st:
                self.errors.append("%d slices never ended on track %d" % (len(st), track))


