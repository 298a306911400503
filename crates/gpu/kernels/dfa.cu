// Regexes as DFAs (Kargus 4.5: PCREs whose DFA has fewer than 5,000 states run on the GPU),
// compiled at run time by NVRTC. The CPU executor (src/cpu.rs, run_dfa) is this file
// statement for statement: change both.
//
// One thread per job (packet, dfa). The walk follows mpm::PlainDfa::find_end: a state
// flagged MATCH entered on the byte at position i means a match ends at i; DEAD stops the
// walk; after the last byte EOI_MATCH means a match ends at the packet's end. The result is
// the earliest match end, or 0xffffffff.
//
//   payload / pkt_off / pkt_len  the batch (see ac.cu)
//   jobs      x = packet index, y = DFA index
//   trans     16-bit transitions of every DFA (local state ids)
//   flags     one byte per state: 1 = MATCH, 2 = EOI_MATCH, 4 = DEAD
//   dfas      per DFA: x = first transition entry, y = first flag byte, z = start, w = states

typedef unsigned int u32;
typedef unsigned short u16;

#define DFA_MATCH 1u
#define DFA_EOI_MATCH 2u
#define DFA_DEAD 4u
#define NO_MATCH 0xffffffffu

__device__ __forceinline__ u32 dfa_byte_of(const uint4& v, u32 k) {
    u32 w = (k < 8) ? ((k < 4) ? v.x : v.y) : ((k < 12) ? v.z : v.w);
    return (w >> (8 * (k & 3))) & 0xffu;
}

extern "C" __global__ void dfa_u16(const uint4* __restrict__ payload,
                                   const u32* __restrict__ pkt_off,
                                   const u32* __restrict__ pkt_len, u32 npkts,
                                   const uint2* __restrict__ jobs, u32 njobs,
                                   const u16* __restrict__ trans,
                                   const unsigned char* __restrict__ flags,
                                   const uint4* __restrict__ dfas, u32 ndfas,
                                   u32* __restrict__ result) {
    const u32 j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= njobs) return;
    const uint2 job = jobs[j];
    if (job.x >= npkts || job.y >= ndfas) {
        result[j] = NO_MATCH;
        return;
    }
    const uint4 d = dfas[job.y];
    const u16* t = trans + d.x;
    const unsigned char* f = flags + d.y;
    const uint4* pkt = payload + (pkt_off[job.x] >> 4);
    const u32 len = pkt_len[job.x];
    u32 s = d.z;
    if (f[s] & DFA_DEAD) {
        result[j] = NO_MATCH;
        return;
    }
    for (u32 v = 0; v < len; v += 16) {
        const uint4 vec = pkt[v >> 4];
        const u32 hi = (len - v) < 16 ? (len - v) : 16;
        for (u32 k = 0; k < hi; ++k) {
            s = t[(s << 8) + dfa_byte_of(vec, k)];
            const u32 fl = f[s];
            if (fl & DFA_MATCH) {
                result[j] = v + k;
                return;
            }
            if (fl & DFA_DEAD) {
                result[j] = NO_MATCH;
                return;
            }
        }
    }
    result[j] = (f[s] & DFA_EOI_MATCH) ? len : NO_MATCH;
}
