// Aho-Corasick over AC-Full DFAs (Kargus 4.5, Gnort 3-4, MIDeA 4), compiled at run time by
// NVRTC. The CPU executor (src/cpu.rs) is this file statement for statement: change both.
//
// Buffers (see src/batch.rs, src/tables.rs, src/reports.rs):
//   payload   every packet at a 16-byte boundary, zero-padded to 16: read with uint4 loads
//   pkt_off   byte offset of packet p (a multiple of 16)    pkt_len  its length
//   pkt_group its signature group
//   trans     transitions of every group, group-local state ids, 16 or 32 bits
//   groups    per group: x = first transition entry, y = first matching state,
//             z = first out_offsets entry, w = longest pattern
//   out_offsets / outputs: pattern indices reported by matching states
//   counts    per packet: reports claimed (above cap = overflow, scanning stopped)
//   reports   per packet a row of cap uint2 (x = group-local pattern index, y = end offset)

typedef unsigned int u32;
typedef unsigned short u16;

struct Row {
    u32* count;
    uint2* slots;
    u32 cap;
};

// Claim a slot; false once the row has overflowed.
__device__ __forceinline__ bool emit(const Row& row, u32 pattern, u32 end) {
    u32 slot = atomicAdd(row.count, 1u);
    if (slot < row.cap) {
        row.slots[slot] = make_uint2(pattern, end);
        return true;
    }
    return false;
}

__device__ __forceinline__ u32 byte_of(const uint4& v, u32 k) {
    u32 w = (k < 8) ? ((k < 4) ? v.x : v.y) : ((k < 12) ? v.z : v.w);
    return (w >> (8 * (k & 3))) & 0xffu;
}

// Walk payload[from, to) of one packet from state 0 at `from`; report matches ending at or
// after report_from + 1. Returns false when the row overflowed.
template <typename T>
__device__ bool walk(const uint4* __restrict__ pkt, const T* __restrict__ trans,
                     const uint4 g, const u32* __restrict__ out_offsets,
                     const u32* __restrict__ outputs, u32 from, u32 to, u32 report_from,
                     const Row& row) {
    u32 s = 0;
    for (u32 v = from & ~15u; v < to; v += 16) {
        const uint4 vec = pkt[v >> 4];
        const u32 lo = from > v ? from - v : 0;
        const u32 hi = (to - v) < 16 ? (to - v) : 16;
        for (u32 k = lo; k < hi; ++k) {
            s = trans[g.x + (s << 8) + byte_of(vec, k)];
            const u32 i = v + k;
            if (s >= g.y && i >= report_from) {
                const u32 kk = g.z + s - g.y;
                for (u32 o = out_offsets[kk]; o < out_offsets[kk + 1]; ++o) {
                    if (!emit(row, outputs[o], i + 1)) return false;
                }
            }
        }
    }
    return true;
}

// One thread per packet (Gnort 4.2, Kargus 4.5).
template <typename T>
__device__ void ac_thread(const uint4* __restrict__ payload, const u32* __restrict__ pkt_off,
                          const u32* __restrict__ pkt_len, const u32* __restrict__ pkt_group,
                          u32 npkts, const T* __restrict__ trans,
                          const uint4* __restrict__ groups, u32 ngroups,
                          const u32* __restrict__ out_offsets, const u32* __restrict__ outputs,
                          u32* counts, uint2* reports, u32 cap) {
    const u32 p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npkts) return;
    const u32 group = pkt_group[p];
    if (group >= ngroups) return;
    const Row row = {counts + p, reports + (size_t)p * cap, cap};
    walk<T>(payload + (pkt_off[p] >> 4), trans, groups[group], out_offsets, outputs, 0,
            pkt_len[p], 0, row);
}

// One block per packet, the payload cut into blockDim.x chunks (Gnort 4.1); each thread
// starts max_len - 1 bytes early (the overlap) and reports the matches ending in its chunk.
template <typename T>
__device__ void ac_block(const uint4* __restrict__ payload, const u32* __restrict__ pkt_off,
                         const u32* __restrict__ pkt_len, const u32* __restrict__ pkt_group,
                         u32 npkts, const T* __restrict__ trans,
                         const uint4* __restrict__ groups, u32 ngroups,
                         const u32* __restrict__ out_offsets, const u32* __restrict__ outputs,
                         u32* counts, uint2* reports, u32 cap) {
    const u32 p = blockIdx.x;
    if (p >= npkts) return;
    const u32 group = pkt_group[p];
    if (group >= ngroups) return;
    const uint4 g = groups[group];
    const u32 len = pkt_len[p];
    const u32 chunk = (len + blockDim.x - 1) / blockDim.x;
    const u32 start = threadIdx.x * chunk;
    const u32 end = min(start + chunk, len);
    if (start >= end) return;
    if (*(volatile u32*)(counts + p) > cap) return;
    const u32 overlap = g.w - 1;
    const u32 from = start > overlap ? start - overlap : 0;
    const Row row = {counts + p, reports + (size_t)p * cap, cap};
    walk<T>(payload + (pkt_off[p] >> 4), trans, g, out_offsets, outputs, from, end, start, row);
}

// ---- Hot rows in shared memory (issue 27 point 5) ----
// One thread per packet, as ac_thread, but the rows of the shallowest states of one group
// (hot_group; src/tables.rs HotWindows: local states [0, lo) are shared rows [0, lo),
// states [match_min, match_min + hi) rows [lo, lo + hi)) are first copied into the
// block's shared memory, and a lookup from such a state reads them there. ac_hot keeps
// the table's entries; ac_hot16 keeps, per entry, the next state's 16-bit shared row, or
// COLD16 when the next state is not shared (its id then comes from the global table).
// Which memory answers never changes the next state: the reports equal ac_thread's.

#define NO_ROW 0xffffffffu
#define COLD16 0xffffu

extern __shared__ uint4 hot_smem[];

__device__ __forceinline__ u32 hot_row(u32 s, u32 lo, u32 hi, u32 match_min) {
    if (s < lo) return s;
    const u32 m = s - match_min;
    return (s >= match_min && m < hi) ? lo + m : NO_ROW;
}

__device__ __forceinline__ u32 row_state(u32 r, u32 lo, u32 match_min) {
    return r < lo ? r : match_min + (r - lo);
}

template <typename T, bool NARROW>
__device__ void ac_hot(const uint4* __restrict__ payload, const u32* __restrict__ pkt_off,
                       const u32* __restrict__ pkt_len, const u32* __restrict__ pkt_group,
                       u32 npkts, const T* __restrict__ trans,
                       const uint4* __restrict__ groups, u32 ngroups,
                       const u32* __restrict__ out_offsets, const u32* __restrict__ outputs,
                       u32* counts, uint2* reports, u32 cap, u32 hot_group, u32 lo, u32 hi) {
    T* wide = reinterpret_cast<T*>(hot_smem);
    u16* narrow = reinterpret_cast<u16*>(hot_smem);
    uint4 hg = make_uint4(0, 0, 0, 0);
    if (hot_group < ngroups) {
        hg = groups[hot_group];
    } else {
        lo = 0;
        hi = 0;
    }
    // load_hot: every block copies the same rows.
    for (u32 i = threadIdx.x; i < ((lo + hi) << 8); i += blockDim.x) {
        const u32 s = row_state(i >> 8, lo, hg.y);
        const u32 next = trans[hg.x + (s << 8) + (i & 255u)];
        if (NARROW) {
            const u32 r = hot_row(next, lo, hi, hg.y);
            narrow[i] = (u16)(r == NO_ROW ? COLD16 : r);
        } else {
            wide[i] = (T)next;
        }
    }
    __syncthreads();
    const u32 p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npkts) return;
    const u32 group = pkt_group[p];
    if (group >= ngroups) return;
    const uint4 g = groups[group];
    const u32 glo = group == hot_group ? lo : 0;
    const u32 ghi = group == hot_group ? hi : 0;
    const Row row = {counts + p, reports + (size_t)p * cap, cap};
    const uint4* pkt = payload + (pkt_off[p] >> 4);
    const u32 len = pkt_len[p];
    const bool narrowed = NARROW && (lo + hi) > 0;
    u32 s = 0;
    u32 r = hot_row(0, glo, ghi, g.y);
    for (u32 v = 0; v < len; v += 16) {
        const uint4 vec = pkt[v >> 4];
        const u32 end = (len - v) < 16 ? (len - v) : 16;
        for (u32 k = 0; k < end; ++k) {
            const u32 b = byte_of(vec, k);
            if (narrowed) {
                if (r != NO_ROW) {
                    const u32 e = narrow[(r << 8) + b];
                    if (e != COLD16) {
                        r = e;
                        s = row_state(r, glo, g.y);
                    } else {
                        s = trans[g.x + (s << 8) + b];
                        r = NO_ROW;
                    }
                } else {
                    s = trans[g.x + (s << 8) + b];
                    r = hot_row(s, glo, ghi, g.y);
                }
            } else {
                const u32 rr = hot_row(s, glo, ghi, g.y);
                s = rr != NO_ROW ? (u32)wide[(rr << 8) + b] : (u32)trans[g.x + (s << 8) + b];
            }
            if (s >= g.y) {
                const u32 kk = g.z + s - g.y;
                for (u32 o = out_offsets[kk]; o < out_offsets[kk + 1]; ++o) {
                    if (!emit(row, outputs[o], v + k + 1)) return;
                }
            }
        }
    }
}

#define AC_ARGS                                                                              \
    const uint4 *payload, const u32 *pkt_off, const u32 *pkt_len, const u32 *pkt_group,      \
        u32 npkts, const TRANS *trans, const uint4 *groups, u32 ngroups,                      \
        const u32 *out_offsets, const u32 *outputs, u32 *counts, uint2 *reports, u32 cap
#define AC_PASS                                                                              \
    payload, pkt_off, pkt_len, pkt_group, npkts, trans, groups, ngroups, out_offsets, outputs, \
        counts, reports, cap

#define TRANS u16
extern "C" __global__ void ac_thread_u16(AC_ARGS) { ac_thread<u16>(AC_PASS); }
extern "C" __global__ void ac_block_u16(AC_ARGS) { ac_block<u16>(AC_PASS); }
extern "C" __global__ void ac_hot_u16(AC_ARGS, u32 hot_group, u32 lo, u32 hi) {
    ac_hot<u16, false>(AC_PASS, hot_group, lo, hi);
}
extern "C" __global__ void ac_hot16_u16(AC_ARGS, u32 hot_group, u32 lo, u32 hi) {
    ac_hot<u16, true>(AC_PASS, hot_group, lo, hi);
}
#undef TRANS
#define TRANS u32
extern "C" __global__ void ac_thread_u32(AC_ARGS) { ac_thread<u32>(AC_PASS); }
extern "C" __global__ void ac_block_u32(AC_ARGS) { ac_block<u32>(AC_PASS); }
extern "C" __global__ void ac_hot_u32(AC_ARGS, u32 hot_group, u32 lo, u32 hi) {
    ac_hot<u32, false>(AC_PASS, hot_group, lo, hi);
}
extern "C" __global__ void ac_hot16_u32(AC_ARGS, u32 hot_group, u32 lo, u32 hi) {
    ac_hot<u32, true>(AC_PASS, hot_group, lo, hi);
}
#undef TRANS
