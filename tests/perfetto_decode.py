"""perfetto_decode.py - an independent reader of Perfetto trace files for the tests: the
protobuf wire format by hand (no protobuf library, no flightrec code), the packets of a
Trace, their sequences' incremental state (interned names, TracePacketDefaults and
sequence-scoped clocks, valid after a packet that clears the state), timestamps on a
sequence's incremental clock (each the delta from the previous one on that clock, placed
on the builtin clock by the sequence's ClockSnapshot), track descriptors, and slices
rebuilt from their begin and end on each track. Every builtin clock is taken as the one
timeline. Field numbers: tests/data/perfetto/perfetto_trace.proto."""
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
    """errors: what breaks Perfetto's rules; clock: the trace's ClockSnapshot (not a
    sequence's), clock id -> timestamp;
    tracks: uuid -> descriptor; slices: track uuid -> [(name, start, end, depth, args)];
    instants: (track, name, ts, categories, args)."""

    def __init__(self, path):
        data = open(path, "rb").read()
        self.clock = {}
        self.tracks = {}          # uuid -> descriptor dict
        self.slices = collections.defaultdict(list)   # track uuid -> [(name, start, end, depth, args)]
        self.instants = []        # (track, name, ts, category, args)
        self.errors = []
        self.clock_overrides = 0  # track events with a timestamp_clock_id of their own
        names, cats = {}, {}
        defaults = {}             # seq -> (timestamp clock id, default track uuid)
        seq_clocks = {}           # seq -> {clock id: [last value, offset to builtin, incremental]}
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
                defaults.pop(seq, None)
                seq_clocks.pop(seq, None)
            if flags & 2 and seq not in cleared:
                self.errors.append("packet needs incremental state before it was cleared")
            if 59 in p:
                if seq not in cleared:
                    self.errors.append("TracePacketDefaults before the state was cleared")
                d = msg(p[59][0])
                ted = msg(d[11][0]) if 11 in d else {}
                defaults[seq] = (d[58][0] if 58 in d else None,
                                 ted[11][0] if 11 in ted else None)
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
                clocks = [msg(c) for c in cs[1]]
                scoped = [c for c in clocks if 64 <= c[1][0] < 128]
                builtin = [c for c in clocks if c[1][0] < 64]
                if not scoped:
                    for c in clocks:
                        self.clock[c[1][0]] = c[2][0]
                    self.primary = cs[2][0] if 2 in cs else None
                elif not builtin or seq not in cleared:
                    self.errors.append("sequence clock without a builtin clock or a cleared state")
                else:
                    for c in scoped:
                        seq_clocks.setdefault(seq, {})[c[1][0]] = [
                            c[2][0], builtin[0][2][0] - c[2][0], bool(c.get(3, [0])[0])]
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
                clock_id = p[58][0] if 58 in p else defaults.get(seq, (None, None))[0]
                self.clock_overrides += 58 in p
                ts = p[8][0]
                if clock_id is not None and 64 <= clock_id < 128:
                    c = seq_clocks.get(seq, {}).get(clock_id)
                    if c is None:
                        self.errors.append("timestamp on sequence clock %d before its snapshot"
                                           % clock_id)
                        continue
                    if not flags & 2:
                        self.errors.append("timestamp on a sequence clock without SEQ_NEEDS_INCREMENTAL_STATE")
                    c[0] = c[0] + ts if c[2] else ts
                    ts = c[0] + c[1]
                if 11 in te:
                    track = te[11][0]
                elif defaults.get(seq, (None, None))[1] is not None:
                    if not flags & 2:
                        self.errors.append("default track without SEQ_NEEDS_INCREMENTAL_STATE")
                    track = defaults[seq][1]
                else:
                    self.errors.append("track event without a track")
                    continue
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


