// SPDX-License-Identifier: LGPL-2.0
/*
 * crc32c.c: the two CRCs a JBD2 journal uses.
 *
 * crc32c (Castagnoli, bit-reflected, polynomial 0x82F63B78) protects csum
 * v2/v3 journals and the journal superblock; the big-endian crc32
 * (polynomial 0x04C11DB7, not reflected) is the v1 commit checksum.  Both
 * functions return the raw register: the caller passes the seed and nothing
 * is inverted on the way in or out, which is what libext2fs's
 * ext2fs_crc32c_le() and ext2fs_crc32_be() do and what the journal stores.
 *
 * crc32c runs on AVX-512 carry-less multiplies (VPCLMULQDQ) where the CPU
 * has them, else on the SSE4.2 crc32 instruction (picked once, at the first
 * call), otherwise on slice-by-8 tables.  Every table is
 * const and built by the compiler, so there is nothing to initialise and
 * nothing shared to race on apart from the dispatch pointer.
 */
#include <stdint.h>
#include <string.h>

#include "ej_lib.h"

#define CRC32C_POLY	0x82f63b78U	/* reflected */
#define CRC32_BE_POLY	0x04c11db7U

/*
 * Table construction.  A crc is linear over GF(2), so the table entry for a
 * byte n is the XOR of the entries for the bits set in n, and each table
 * needs only eight constants: BIT_SUM8() picks and combines them, ROW256()
 * spells out the 256 entries.
 */
#define BIT_SUM8(n, c0, c1, c2, c3, c4, c5, c6, c7)			\
	((((n) & 0x01) ? (c0) : 0U) ^ (((n) & 0x02) ? (c1) : 0U) ^	\
	 (((n) & 0x04) ? (c2) : 0U) ^ (((n) & 0x08) ? (c3) : 0U) ^	\
	 (((n) & 0x10) ? (c4) : 0U) ^ (((n) & 0x20) ? (c5) : 0U) ^	\
	 (((n) & 0x40) ? (c6) : 0U) ^ (((n) & 0x80) ? (c7) : 0U))

#define ROW4(f, n)	f(n), f((n) + 1), f((n) + 2), f((n) + 3)
#define ROW16(f, n)	ROW4(f, n), ROW4(f, (n) + 4), ROW4(f, (n) + 8), \
			ROW4(f, (n) + 12)
#define ROW64(f, n)	ROW16(f, n), ROW16(f, (n) + 16), ROW16(f, (n) + 32), \
			ROW16(f, (n) + 48)
#define ROW256(f)	ROW64(f, 0), ROW64(f, 64), ROW64(f, 128), ROW64(f, 192)

/*
 * crc32c, slice-by-8: table k maps a byte followed by k zero bytes to the
 * register it leaves.  In the reflected register bit i of the byte stands
 * for x^(31 - i), so its constant is x^(8k + 39 - i) mod P, written
 * reflected.
 */
#define C32C_T0(n) BIT_SUM8(n, 0xf26b8303U, 0xe13b70f7U, 0xc79a971fU, \
	0x8ad958cfU, 0x105ec76fU, 0x20bd8edeU, 0x417b1dbcU, 0x82f63b78U)
#define C32C_T1(n) BIT_SUM8(n, 0x13a29877U, 0x274530eeU, 0x4e8a61dcU, \
	0x9d14c3b8U, 0x3fc5f181U, 0x7f8be302U, 0xff17c604U, 0xfbc3faf9U)
#define C32C_T2(n) BIT_SUM8(n, 0xa541927eU, 0x4f6f520dU, 0x9edea41aU, \
	0x38513ec5U, 0x70a27d8aU, 0xe144fb14U, 0xc76580d9U, 0x8b277743U)
#define C32C_T3(n) BIT_SUM8(n, 0xdd45aab8U, 0xbf672381U, 0x7b2231f3U, \
	0xf64463e6U, 0xe964b13dU, 0xd725148bU, 0xaba65fe7U, 0x52a0c93fU)
#define C32C_T4(n) BIT_SUM8(n, 0x38116facU, 0x7022df58U, 0xe045beb0U, \
	0xc5670b91U, 0x8f2261d3U, 0x1ba8b557U, 0x37516aaeU, 0x6ea2d55cU)
#define C32C_T5(n) BIT_SUM8(n, 0xef306b19U, 0xdb8ca0c3U, 0xb2f53777U, \
	0x6006181fU, 0xc00c303eU, 0x85f4168dU, 0x0e045bebU, 0x1c08b7d6U)
#define C32C_T6(n) BIT_SUM8(n, 0x68032cc8U, 0xd0065990U, 0xa5e0c5d1U, \
	0x4e2dfd53U, 0x9c5bfaa6U, 0x3d5b83bdU, 0x7ab7077aU, 0xf56e0ef4U)
#define C32C_T7(n) BIT_SUM8(n, 0x493c7d27U, 0x9278fa4eU, 0x211d826dU, \
	0x423b04daU, 0x847609b4U, 0x0d006599U, 0x1a00cb32U, 0x34019664U)

static const __u32 crc32c_table[8][256] = {
	{ ROW256(C32C_T0) }, { ROW256(C32C_T1) },
	{ ROW256(C32C_T2) }, { ROW256(C32C_T3) },
	{ ROW256(C32C_T4) }, { ROW256(C32C_T5) },
	{ ROW256(C32C_T6) }, { ROW256(C32C_T7) },
};

/*
 * Big-endian crc32, slice-by-8 the same way: bit i of a byte enters the
 * register as x^(24 + i), so table k's constant for it is
 * x^(8k + 32 + i) mod P.
 */
#define CBE_T0(n) BIT_SUM8(n, 0x04c11db7U, 0x09823b6eU, 0x130476dcU, \
	0x2608edb8U, 0x4c11db70U, 0x9823b6e0U, 0x34867077U, 0x690ce0eeU)
#define CBE_T1(n) BIT_SUM8(n, 0xd219c1dcU, 0xa0f29e0fU, 0x452421a9U, \
	0x8a484352U, 0x10519b13U, 0x20a33626U, 0x41466c4cU, 0x828cd898U)
#define CBE_T2(n) BIT_SUM8(n, 0x01d8ac87U, 0x03b1590eU, 0x0762b21cU, \
	0x0ec56438U, 0x1d8ac870U, 0x3b1590e0U, 0x762b21c0U, 0xec564380U)
#define CBE_T3(n) BIT_SUM8(n, 0xdc6d9ab7U, 0xbc1a28d9U, 0x7cf54c05U, \
	0xf9ea980aU, 0xf7142da3U, 0xeae946f1U, 0xd1139055U, 0xa6e63d1dU)
#define CBE_T4(n) BIT_SUM8(n, 0x490d678dU, 0x921acf1aU, 0x20f48383U, \
	0x41e90706U, 0x83d20e0cU, 0x036501afU, 0x06ca035eU, 0x0d9406bcU)
#define CBE_T5(n) BIT_SUM8(n, 0x1b280d78U, 0x36501af0U, 0x6ca035e0U, \
	0xd9406bc0U, 0xb641ca37U, 0x684289d9U, 0xd08513b2U, 0xa5cb3ad3U)
#define CBE_T6(n) BIT_SUM8(n, 0x4f576811U, 0x9eaed022U, 0x399cbdf3U, \
	0x73397be6U, 0xe672f7ccU, 0xc824f22fU, 0x9488f9e9U, 0x2dd0ee65U)
#define CBE_T7(n) BIT_SUM8(n, 0x5ba1dccaU, 0xb743b994U, 0x6a466e9fU, \
	0xd48cdd3eU, 0xadd8a7cbU, 0x5f705221U, 0xbee0a442U, 0x79005533U)

static const __u32 crc32_be_table[8][256] = {
	{ ROW256(CBE_T0) }, { ROW256(CBE_T1) },
	{ ROW256(CBE_T2) }, { ROW256(CBE_T3) },
	{ ROW256(CBE_T4) }, { ROW256(CBE_T5) },
	{ ROW256(CBE_T6) }, { ROW256(CBE_T7) },
};

static inline __u64 load_le64(const unsigned char *p)
{
	__u64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu(v);
}

static inline __u32 load_be32(const unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

__u32 ej_crc32c_sw(__u32 crc, const void *buf, size_t len)
{
	const __u32 (*t)[256] = crc32c_table;
	const unsigned char *p = buf;
	__u64 w;

	while (len && ((uintptr_t)p & 7)) {
		crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		len--;
	}
	for (; len >= 8; p += 8, len -= 8) {
		w = load_le64(p) ^ crc;
		crc = t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^
		      t[5][(w >> 16) & 0xff] ^ t[4][(w >> 24) & 0xff] ^
		      t[3][(w >> 32) & 0xff] ^ t[2][(w >> 40) & 0xff] ^
		      t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
	}
	while (len--)
		crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

__u32 ej_crc32_be(__u32 crc, const void *buf, size_t len)
{
	const __u32 (*t)[256] = crc32_be_table;
	const unsigned char *p = buf;
	__u32 hi, lo;

	while (len && ((uintptr_t)p & 7)) {
		crc = (crc << 8) ^ t[0][(crc >> 24) ^ *p++];
		len--;
	}
	for (; len >= 8; p += 8, len -= 8) {
		hi = load_be32(p) ^ crc;
		lo = load_be32(p + 4);
		crc = t[7][hi >> 24] ^ t[6][(hi >> 16) & 0xff] ^
		      t[5][(hi >> 8) & 0xff] ^ t[4][hi & 0xff] ^
		      t[3][lo >> 24] ^ t[2][(lo >> 16) & 0xff] ^
		      t[1][(lo >> 8) & 0xff] ^ t[0][lo & 0xff];
	}
	while (len--)
		crc = (crc << 8) ^ t[0][(crc >> 24) ^ *p++];
	return crc;
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define EJ_HAVE_CRC32C_HW	1
#define HW_SSE42	__attribute__((target("sse4.2")))
#define HW_SSE42_CLMUL	__attribute__((target("sse4.2,pclmul")))

#ifdef __x86_64__
typedef __u64 hw_word_t;
#define HW_CRC_WORD(crc, w)	((__u32)_mm_crc32_u64((crc), (w)))
#else
typedef __u32 hw_word_t;
#define HW_CRC_WORD(crc, w)	_mm_crc32_u32((crc), (w))
#endif

static inline HW_SSE42 hw_word_t hw_load(const unsigned char *p)
{
	hw_word_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/* One stream: each crc32 waits for the previous one (3 cycles each). */
static inline HW_SSE42 __u32 hw_crc_1way(__u32 crc, const unsigned char *p,
					 size_t len)
{
	for (; len >= sizeof(hw_word_t); len -= sizeof(hw_word_t)) {
		crc = HW_CRC_WORD(crc, hw_load(p));
		p += sizeof(hw_word_t);
	}
	while (len--)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}

/*
 * crc * x^(8 * L) mod P, i.e. the register after L more zero bytes, given
 * k = x^(8 * L - 33) mod P (reflected).  The carry-less product of two
 * reflected 32-bit values, read as a 64-bit message, lacks a factor x^33:
 * the crc32 instruction supplies x^32 and the reduction mod P, and the
 * remaining x is folded into k.
 */
static inline HW_SSE42_CLMUL __u32 hw_shift(__u32 crc, __u32 k)
{
	__m128i prod = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)crc),
					    _mm_cvtsi32_si128((int)k), 0x00);
#ifdef __x86_64__
	return (__u32)_mm_crc32_u64(0, (__u64)_mm_cvtsi128_si64(prod));
#else
	__u32 lo = (__u32)_mm_cvtsi128_si32(prod);
	__u32 hi = (__u32)_mm_cvtsi128_si32(_mm_srli_si128(prod, 4));

	return _mm_crc32_u32(_mm_crc32_u32(0, lo), hi);
#endif
}

/*
 * Three streams of @stride bytes each side by side keep the crc32 unit
 * busy every cycle; the pieces are then joined by linearity:
 * crc(c, A B C) = crc(c, A) x^(16 * stride) + crc(0, B) x^(8 * stride)
 * + crc(0, C).  @k1 and @k2 are hw_shift() constants for one and two
 * strides.
 */
static inline HW_SSE42_CLMUL __u32 hw_crc_3way(__u32 crc,
					       const unsigned char **pp,
					       size_t *lenp, size_t stride,
					       __u32 k1, __u32 k2)
{
	const unsigned char *p = *pp, *end;
	size_t len = *lenp;
	__u32 c0, c1, c2;

	while (len >= 3 * stride) {
		c0 = crc;
		c1 = 0;
		c2 = 0;
		for (end = p + stride; p < end; p += sizeof(hw_word_t)) {
			c0 = HW_CRC_WORD(c0, hw_load(p));
			c1 = HW_CRC_WORD(c1, hw_load(p + stride));
			c2 = HW_CRC_WORD(c2, hw_load(p + 2 * stride));
		}
		crc = hw_shift(c0, k2) ^ hw_shift(c1, k1) ^ c2;
		p += 2 * stride;
		len -= 3 * stride;
	}
	*pp = p;
	*lenp = len;
	return crc;
}

/*
 * Strides: 3 x 1360 covers a 4 KiB block with 16 bytes left over, 3 x 336
 * a 1 KiB block (or the journal superblock); 3 x 80 mops up what is left
 * of larger buffers.  Constants: x^(8 * L - 33) mod P for L = stride and
 * 2 * stride.
 */
#define HW_STRIDE_L	1360
#define HW_K1_L		0x3f70cc6fU
#define HW_K2_L		0x5aa1f3cfU
#define HW_STRIDE_M	336
#define HW_K1_M		0xa60ce07bU
#define HW_K2_M		0xcec3662eU
#define HW_STRIDE_S	80
#define HW_K1_S		0x39d3b296U
#define HW_K2_S		0x878a92a7U

static HW_SSE42_CLMUL __u32 crc32c_hw_clmul(__u32 crc, const void *buf,
					    size_t len)
{
	const unsigned char *p = buf;

	crc = hw_crc_3way(crc, &p, &len, HW_STRIDE_L, HW_K1_L, HW_K2_L);
	crc = hw_crc_3way(crc, &p, &len, HW_STRIDE_M, HW_K1_M, HW_K2_M);
	crc = hw_crc_3way(crc, &p, &len, HW_STRIDE_S, HW_K1_S, HW_K2_S);
	return hw_crc_1way(crc, p, len);
}

#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 8)
#define EJ_HAVE_CRC32C_VPCLMUL	1
#define HW_VPCLMUL	__attribute__((target( \
	"sse4.2,pclmul,avx512f,avx512vl,vpclmulqdq")))

/*
 * Folding with carry-less multiplies, 256 bytes a round (AVX-512 with
 * VPCLMULQDQ).  A 16-byte lane holding message bytes B, with n bytes of
 * message after it, may be replaced by B * x^(8 * D) mod P placed D bytes
 * further on: the crc of the whole is unchanged.  For a lane read little
 * endian, its low quadword q0 is B's high-degree half (B = q0 x^64 + q1),
 * so the lane moves with two products, q0 * (x^(8D + 63) mod P) and
 * q1 * (x^(8D - 1) mod P); the constants sit bit-reflected in the upper
 * halves of 64-bit operands, which supplies the missing factor x (the
 * product of two reflected 64-bit values lands one bit low).  Each fits
 * in 96 bits, so the lane stays 128 bits wide and the sum is XORed into
 * the lane D bytes on.  Sixteen lanes (four registers) move 256 bytes at
 * a time; at the end they are folded into one lane, whose 16 bytes the
 * crc32 instruction then reduces with a zero register (leading zero bytes
 * do not change a crc that starts from zero; the seed was XORed into the
 * first four bytes, which is what a reflected crc does with it).
 */
#define VP_K(d)		((__u64)(d) << 32)
#define VP_K256_0	VP_K(0xe9a5d8beU)	/* x^(8 * 256 + 63) */
#define VP_K256_1	VP_K(0x1426a815U)	/* x^(8 * 256 - 1) */
#define VP_K64_0	VP_K(0x1c19243bU)
#define VP_K64_1	VP_K(0x75bba45bU)
#define VP_K48_0	VP_K(0xa46ef4aaU)
#define VP_K48_1	VP_K(0x6051243fU)
#define VP_K32_0	VP_K(0x33ccbbbcU)
#define VP_K32_1	VP_K(0xa2158b34U)
#define VP_K16_0	VP_K(0x3743f7bdU)
#define VP_K16_1	VP_K(0x3171d430U)
#define VP_MIN_LEN	512	/* below this, the three crc32 streams */

/* Every lane of @x moved on by the distance @k stands for, plus @d. */
static inline HW_VPCLMUL __m512i vp_fold(__m512i x, __m512i k, __m512i d)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
					 _mm512_clmulepi64_epi128(x, k, 0x11),
					 d, 0x96);
}

/* The pair of constants for one distance, in each 16-byte lane. */
static inline HW_VPCLMUL __m512i vp_k(__u64 k0, __u64 k1)
{
	return _mm512_broadcast_i32x4(_mm_set_epi64x((long long)k1,
						     (long long)k0));
}

static inline HW_VPCLMUL __m128i vp_fold1(__m128i x, __u64 k0, __u64 k1)
{
	__m128i k = _mm_set_epi64x((long long)k1, (long long)k0);

	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
			     _mm_clmulepi64_si128(x, k, 0x11));
}

static HW_VPCLMUL __u32 crc32c_hw_vpclmul(__u32 crc, const void *buf,
					  size_t len)
{
	const unsigned char *p = buf;
	__m512i x0, x1, x2, x3, k;
	__m128i f;

	if (len < VP_MIN_LEN)
		return crc32c_hw_clmul(crc, buf, len);
	x0 = _mm512_xor_si512(_mm512_loadu_si512((const void *)p),
			      _mm512_inserti32x4(_mm512_setzero_si512(),
						 _mm_cvtsi32_si128((int)crc),
						 0));
	x1 = _mm512_loadu_si512((const void *)(p + 64));
	x2 = _mm512_loadu_si512((const void *)(p + 128));
	x3 = _mm512_loadu_si512((const void *)(p + 192));
	p += 256;
	len -= 256;
	k = vp_k(VP_K256_0, VP_K256_1);
	for (; len >= 256; p += 256, len -= 256) {
		x0 = vp_fold(x0, k, _mm512_loadu_si512((const void *)p));
		x1 = vp_fold(x1, k, _mm512_loadu_si512((const void *)(p + 64)));
		x2 = vp_fold(x2, k,
			     _mm512_loadu_si512((const void *)(p + 128)));
		x3 = vp_fold(x3, k,
			     _mm512_loadu_si512((const void *)(p + 192)));
	}
	/* four registers into one, 64 bytes apart */
	k = vp_k(VP_K64_0, VP_K64_1);
	x1 = vp_fold(x0, k, x1);
	x2 = vp_fold(x1, k, x2);
	x3 = vp_fold(x2, k, x3);
	/* its four lanes into the last one, 48, 32 and 16 bytes on */
	f = _mm_xor_si128(vp_fold1(_mm512_extracti32x4_epi32(x3, 0),
				   VP_K48_0, VP_K48_1),
			  vp_fold1(_mm512_extracti32x4_epi32(x3, 1),
				   VP_K32_0, VP_K32_1));
	f = _mm_ternarylogic_epi64(f, vp_fold1(_mm512_extracti32x4_epi32(x3, 2),
					       VP_K16_0, VP_K16_1),
				   _mm512_extracti32x4_epi32(x3, 3), 0x96);
	crc = (__u32)_mm_crc32_u64(0, (__u64)_mm_cvtsi128_si64(f));
	crc = (__u32)_mm_crc32_u64(crc,
				   (__u64)_mm_cvtsi128_si64(
					   _mm_unpackhi_epi64(f, f)));
	return crc32c_hw_clmul(crc, p, len);
}
#endif

/* SSE4.2 without PCLMULQDQ (first Nehalems): one stream only. */
static HW_SSE42 __u32 crc32c_hw(__u32 crc, const void *buf, size_t len)
{
	return hw_crc_1way(crc, buf, len);
}
#endif /* x86 */

typedef __u32 (*crc32c_fn_t)(__u32 crc, const void *buf, size_t len);

/*
 * The one piece of global state in the library: which implementation this
 * CPU runs, decided on first use.  Racing first callers compute and store
 * the same value.
 */
static crc32c_fn_t crc32c_dispatch;

static crc32c_fn_t crc32c_pick(void)
{
#ifdef EJ_HAVE_CRC32C_HW
	__builtin_cpu_init();
	if (__builtin_cpu_supports("sse4.2")) {
#ifdef EJ_HAVE_CRC32C_VPCLMUL
		if (__builtin_cpu_supports("pclmul") &&
		    __builtin_cpu_supports("avx512f") &&
		    __builtin_cpu_supports("avx512vl") &&
		    __builtin_cpu_supports("vpclmulqdq"))
			return crc32c_hw_vpclmul;
#endif
		if (__builtin_cpu_supports("pclmul"))
			return crc32c_hw_clmul;
		return crc32c_hw;
	}
#endif
	return ej_crc32c_sw;
}

static inline crc32c_fn_t crc32c_get(void)
{
	crc32c_fn_t fn = __atomic_load_n(&crc32c_dispatch, __ATOMIC_RELAXED);

	if (unlikely(!fn)) {
		fn = crc32c_pick();
		__atomic_store_n(&crc32c_dispatch, fn, __ATOMIC_RELAXED);
	}
	return fn;
}

__u32 ej_crc32c(__u32 crc, const void *buf, size_t len)
{
	return crc32c_get()(crc, buf, len);
}

/*
 * Tests and benchmarks: make ej_crc32c() run @name ("sw", "sse4.2" for
 * the crc32 instruction's streams, "vpclmulqdq"), or with NULL what this
 * CPU would pick.  -1 when this CPU cannot run it (nothing changes).
 */
int ej_crc32c_use(const char *name)
{
	crc32c_fn_t fn = NULL;

	if (!name) {
		fn = crc32c_pick();
	} else if (!strcmp(name, "sw")) {
		fn = ej_crc32c_sw;
#ifdef EJ_HAVE_CRC32C_HW
	} else if (!strcmp(name, "sse4.2")) {
		__builtin_cpu_init();
		if (__builtin_cpu_supports("sse4.2"))
			fn = __builtin_cpu_supports("pclmul") ?
			     crc32c_hw_clmul : crc32c_hw;
#endif
#ifdef EJ_HAVE_CRC32C_VPCLMUL
	} else if (!strcmp(name, "vpclmulqdq")) {
		fn = crc32c_pick();
		if (fn != crc32c_hw_vpclmul)
			fn = NULL;
#endif
	}
	if (!fn)
		return -1;
	__atomic_store_n(&crc32c_dispatch, fn, __ATOMIC_RELAXED);
	return 0;
}

const char *ej_crc32c_impl(void)
{
	crc32c_fn_t fn = crc32c_get();

#ifdef EJ_HAVE_CRC32C_VPCLMUL
	if (fn == crc32c_hw_vpclmul)
		return "vpclmulqdq";
#endif
	return fn == ej_crc32c_sw ? "sw" : "sse4.2";
}
