"""CUDA C sources generated for ``ElementwiseKernel`` and ``ReductionKernel``.

Every generated module starts with ``HEADER``: the element types NumPy's dtypes map to
(``float16`` and ``complex<T>`` are defined here, so NVRTC needs no CUDA headers), and
``CArray``, the view a ``raw`` parameter gets. The kernels' parameter lists follow one
layout, shared with ``_elementwise.py``/``_reduction.py`` (which pack the arguments) and
with ``_rust_source.py`` (the same kernels in Rust):

- each declared parameter in order: a non-raw array as its element pointer (element 0
  of the view), a raw array as a ``CArray`` by value, a scalar as a value of its type;
- then the loop size(s) as ``long long``;
- then, for strided layouts of ND dimensions, the shape and each non-raw array's byte
  strides as ``_Dims<ND>`` structs.
"""

import numpy

HEADER = r"""
struct float16 {
    unsigned short x_;
    __device__ float16() {}
    __device__ float16(float f) { asm("cvt.rn.f16.f32 %0, %1;" : "=h"(x_) : "f"(f)); }
    __device__ float16(double d) { asm("cvt.rn.f16.f64 %0, %1;" : "=h"(x_) : "d"(d)); }
    __device__ float16(int v) : float16((float)v) {}
    __device__ float16(long long v) : float16((float)v) {}
    __device__ operator float() const {
        float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x_)); return f;
    }
};

template <typename F> struct __align__(2 * sizeof(F)) complex {
    F re_, im_;
    __device__ complex() {}
    __device__ complex(F r) : re_(r), im_(0) {}
    __device__ complex(F r, F i) : re_(r), im_(i) {}
    template <typename G> __device__ complex(const complex<G>& o) : re_((F)o.real()), im_((F)o.imag()) {}
    __device__ F real() const { return re_; }
    __device__ F imag() const { return im_; }
    __device__ void real(F r) { re_ = r; }
    __device__ void imag(F i) { im_ = i; }
    __device__ complex& operator+=(const complex& o) { re_ += o.re_; im_ += o.im_; return *this; }
    __device__ complex& operator-=(const complex& o) { re_ -= o.re_; im_ -= o.im_; return *this; }
    __device__ complex& operator*=(const complex& o) { *this = *this * o; return *this; }
    __device__ complex& operator/=(const complex& o) { *this = *this / o; return *this; }
    __device__ friend complex operator+(const complex& a, const complex& b) { return complex(a.re_ + b.re_, a.im_ + b.im_); }
    __device__ friend complex operator-(const complex& a, const complex& b) { return complex(a.re_ - b.re_, a.im_ - b.im_); }
    __device__ friend complex operator-(const complex& a) { return complex(-a.re_, -a.im_); }
    __device__ friend complex operator*(const complex& a, const complex& b) {
        return complex(a.re_ * b.re_ - a.im_ * b.im_, a.re_ * b.im_ + a.im_ * b.re_);
    }
    __device__ friend complex operator/(const complex& a, const complex& b) {
        // Smith's algorithm: no overflow for large |b|.
        if (fabs(b.re_) >= fabs(b.im_)) {
            F r = b.im_ / b.re_, d = b.re_ + b.im_ * r;
            return complex((a.re_ + a.im_ * r) / d, (a.im_ - a.re_ * r) / d);
        }
        F r = b.re_ / b.im_, d = b.re_ * r + b.im_;
        return complex((a.re_ * r + a.im_) / d, (a.im_ * r - a.re_) / d);
    }
    __device__ friend bool operator==(const complex& a, const complex& b) { return a.re_ == b.re_ && a.im_ == b.im_; }
    __device__ friend bool operator!=(const complex& a, const complex& b) { return !(a == b); }
};
template <typename F> __device__ F real(const complex<F>& z) { return z.real(); }
template <typename F> __device__ F imag(const complex<F>& z) { return z.imag(); }
template <typename F> __device__ complex<F> conj(const complex<F>& z) { return complex<F>(z.real(), -z.imag()); }
template <typename F> __device__ F norm(const complex<F>& z) { return z.real() * z.real() + z.imag() * z.imag(); }
template <typename F> __device__ F abs(const complex<F>& z) { return hypot(z.real(), z.imag()); }
template <typename F> __device__ F arg(const complex<F>& z) { return atan2(z.imag(), z.real()); }
template <typename F> __device__ complex<F> exp(const complex<F>& z) {
    F m = exp(z.real()); return complex<F>(m * cos(z.imag()), m * sin(z.imag()));
}
template <typename F> __device__ complex<F> log(const complex<F>& z) { return complex<F>(log(abs(z)), arg(z)); }
template <typename F> __device__ complex<F> polar(F r, F t) { return complex<F>(r * cos(t), r * sin(t)); }

template <typename T, int ND, bool C> struct CArray {
    T* data_;
    long long size_;
    long long shape_[ND];
    long long strides_[ND];
    __device__ long long size() const { return size_; }
    __device__ int ndim() const { return ND; }
    __device__ const long long* shape() const { return shape_; }
    __device__ const long long* strides() const { return strides_; }
    __device__ T* data() const { return data_; }
    // The element at flat C-order index `idx` of the view.
    __device__ T& operator[](long long idx) const {
        if (C) return data_[idx];
        char* p = (char*)data_;
        for (int d = ND - 1; d >= 0; --d) {
            long long c = idx % shape_[d];
            idx /= shape_[d];
            p += c * strides_[d];
        }
        return *(T*)p;
    }
    // The element at the multi-index `idx` (ND entries).
    __device__ T& operator[](const long long* idx) const {
        char* p = (char*)data_;
        for (int d = 0; d < ND; ++d) p += idx[d] * strides_[d];
        return *(T*)p;
    }
};

template <int ND> struct _Dims { long long v[ND]; };

struct _CIndexer {
    long long size_;
    __device__ long long size() const { return size_; }
};
"""

CTYPES_BY_DTYPE = {
    "bool": "bool",
    "int8": "signed char",
    "int16": "short",
    "int32": "int",
    "int64": "long long",
    "uint8": "unsigned char",
    "uint16": "unsigned short",
    "uint32": "unsigned int",
    "uint64": "unsigned long long",
    "float16": "float16",
    "float32": "float",
    "float64": "double",
    "complex64": "complex<float>",
    "complex128": "complex<double>",
}


def ctype(dtype):
    """The C type of a NumPy dtype's elements."""
    name = numpy.dtype(dtype).name
    try:
        return CTYPES_BY_DTYPE[name]
    except KeyError:
        raise TypeError(f"dtype {name} is not supported by user kernels") from None


def typedefs(types):
    """``typedef`` lines for the bound placeholders (``T`` -> ``float``)."""
    return "".join(f"typedef {ctype(d)} {t};\n" for t, d in sorted(types.items()))


def carray_type(dtype, nd, contiguous):
    return f"CArray<{ctype(dtype)}, {max(nd, 1)}, {'true' if contiguous else 'false'}>"


def _declare(slot, types, qualifier):
    """(the kernel parameter of one slot, its bound C type, the array's element C type
    or None): a scalar by value, a raw array as its CArray, an array as a pointer."""
    p, kind, adt, rnd, rc = slot
    bound = ctype(types[p.ctype] if p.placeholder else p.dtype)
    if kind == "scalar":
        return f"{bound} {p.name}", bound, None
    if kind == "raw":
        return f"{carray_type(adt, rnd, rc)} {p.name}", bound, None
    at = ctype(adt)
    return f"{qualifier}{at}* _p_{p.name}", bound, at


def _offsets(arrays, nd, index):
    """Code computing each strided array's byte offset ``_o_<array>`` for flat index
    `index` over ``_shape`` and the strides ``_st_<array>``."""
    return _dims_offsets(arrays, nd, index, "_shape", "")


#: Reduced elements each thread of a reduction loads per step (with no bounds checks
#: between them, so the loads are in flight together).
RED_UNROLL = 4

#: Elements each thread of a contiguous elementwise kernel handles per step: their loads
#: are issued together, so a thread has several in flight (the hosts' grid divides by it).
UNROLL = 4


def elementwise(name, slots, operation, preamble, loop_prep, after_loop, types, nd):
    """An elementwise kernel. `slots` is one tuple per parameter:
    ``(param, kind, array_dtype, raw_nd, raw_contiguous)`` with kind 'array', 'raw' or
    'scalar'; `nd` is None for the contiguous layout (element ``i`` at ``p[i]``) or the
    strided layout's dimension count.

    The contiguous layout takes `UNROLL` elements per thread and step, ``blockDim.x``
    apart (each load coalesced across the warp): a full step loads every input first,
    then runs the operation on each element; the last, partial step checks each index.
    """
    sig, body, arrays, ins = [], [], [], []
    for slot in slots:
        p, kind = slot[0], slot[1]
        decl, bound, at = _declare(slot, types, "")
        sig.append(decl)
        if kind == "array":
            arrays.append(p.name)
            elem = f"_p_{p.name}[i]" if nd is None else f"*({at}*)((char*)_p_{p.name} + _o_{p.name})"
            if p.is_const:
                ins.append((p.name, at, bound))
                body.append(f"const {bound} {p.name} = ({bound})({elem});")
            else:
                body.append(f"{bound} &{p.name} = {elem};")
    sig.append("long long _n")
    if nd is not None:
        sig.append(f"_Dims<{nd}> _shape")
        sig += [f"_Dims<{nd}> _st_{a}" for a in arrays]
    head = f"""{HEADER}
{typedefs(types)}
{preamble}
extern "C" __global__ void {name}({", ".join(sig)}) {{
    const _CIndexer _ind = {{_n}};
    (void)_ind;
    {loop_prep}"""
    if nd is not None:
        offsets = _offsets(arrays, nd, "i") if arrays else ""
        return f"""{head}
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < _n;
         i += (long long)blockDim.x * gridDim.x) {{
        {offsets}
        {chr(10).join("        " + b for b in body).lstrip()}
        {operation};
    }}
    {after_loop}
}}
"""
    loads = "\n            ".join(
        f"{at} _v_{a}[{UNROLL}];\n            #pragma unroll\n            "
        f"for (int _u = 0; _u < {UNROLL}; ++_u) _v_{a}[_u] = _p_{a}[_b + _u * (long long)blockDim.x];"
        for a, at, _ in ins)
    loaded = [b for b in body if not b.startswith("const ")]
    loaded = [f"const {bound} {a} = ({bound})(_v_{a}[_u]);" for a, _, bound in ins] + loaded
    full = "\n                ".join(loaded)
    checked = "\n                ".join(body)
    return f"""{head}
    const long long _step = (long long)blockDim.x * gridDim.x * {UNROLL};
    for (long long _b = blockIdx.x * (long long)blockDim.x * {UNROLL} + threadIdx.x; _b < _n;
         _b += _step) {{
        if (_b + ({UNROLL} - 1) * (long long)blockDim.x < _n) {{
            {loads}
            #pragma unroll
            for (int _u = 0; _u < {UNROLL}; ++_u) {{
                const long long i = _b + _u * (long long)blockDim.x;
                {full}
                {operation};
            }}
        }} else {{
            for (int _u = 0; _u < {UNROLL}; ++_u) {{
                const long long i = _b + _u * (long long)blockDim.x;
                if (i >= _n) break;
                {checked}
                {operation};
            }}
        }}
    }}
    {after_loop}
}}
"""


def _dims_offsets(groups, nd, index, shape, tag):
    """Like `_offsets`, over `shape` (a `_Dims<nd>` name) for the arrays in `groups`,
    naming the per-array offsets ``_o{tag}_<array>`` and strides ``_st{tag}_<array>``."""
    lines = [f"long long _o{tag}_{a} = 0;" for a in groups]
    lines.append(f"long long _r{tag} = {index};")
    for d in range(nd - 1, -1, -1):
        if d > 0:
            lines.append(f"long long _c{tag}{d} = _r{tag} % {shape}.v[{d}]; _r{tag} /= {shape}.v[{d}];")
        else:
            lines.append(f"long long _c{tag}{d} = _r{tag};")
        lines += [f"_o{tag}_{a} += _c{tag}{d} * _st{tag}_{a}.v[{d}];" for a in groups]
    return "\n        ".join(lines)


def reduce_type_name(reduce_type, types):
    """The C type of the accumulator: a dtype name, a bound placeholder or C text."""
    if reduce_type in types:
        return ctype(types[reduce_type])
    if reduce_type in CTYPES_BY_DTYPE:
        return CTYPES_BY_DTYPE[reduce_type]
    # C text (``float``, ``double``, a struct of the preamble), as CuPy passes it.
    return reduce_type


def reduction(name, slots, outs, map_expr, reduce_expr, post_map_expr, identity, reduce_type,
              preamble, types, ndo, ndr, vec=1):
    """A reduction module with three kernels sharing one parameter list:

    - ``{name}``: a block per output, its threads striding through the reduced elements
      (``gridDim.y`` blocks share one output when there are few outputs: each then
      writes its partial value to ``_partial`` and ``{name}_final`` combines them);
    - ``{name}_final``: a thread per output over ``_chunks`` partial values;
    - ``{name}_thread``: a thread per output looping over its reduced elements, for
      reductions over strided (outer) axes, where neighbouring threads then read
      neighbouring elements.

    `slots` are the input parameters as in `elementwise`, `outs` the output parameters;
    `ndo`/`ndr` the output and reduced dimension counts (at least 1). `vec` > 1 (only
    when the reduced elements of every non-raw array are contiguous, one reduced
    dimension) adds a packed path to ``{name}``: each thread loads `vec` elements of
    each array at once (one 16-byte load for float32 and vec 4) where every array's
    slice is aligned to its pack, as gpupy's own reductions read; the host makes the
    chunks of a split slice whole packs."""
    rtype = reduce_type_name(reduce_type, types)
    sig, loads, arrays, packs = [], [], [], []
    for slot in slots:
        p, kind = slot[0], slot[1]
        decl, bound, at = _declare(slot, types, "const ")
        sig.append(decl)
        if kind == "array":
            arrays.append(p.name)
            loads.append(f"const {bound} {p.name} = ({bound})(*(const {at}*)"
                         f"((const char*)_p_{p.name} + _oo_{p.name} + _or_{p.name}));")
            packs.append((p.name, bound, at, vec * slot[2].itemsize))
    out_names = []
    stores = []
    for p, adt in outs:
        at = ctype(adt)
        out_names.append(p.name)
        sig.append(f"{at}* _p_{p.name}")
        stores.append(f"{at} &{p.name} = *({at}*)((char*)_p_{p.name} + _oy_{p.name});")
    sig += ["long long _n_out", "long long _n_red", "long long _chunk", "_type_reduce* _partial"]
    sig += [f"_Dims<{ndo}> _oshape", f"_Dims<{ndr}> _rshape"]
    for a in arrays:
        sig += [f"_Dims<{ndo}> _sto_{a}", f"_Dims<{ndr}> _str_{a}"]
    sig += [f"_Dims<{ndo}> _sty_{a}" for a in out_names]
    has_id = identity is not None
    init = f"_type_reduce _acc = (_type_reduce)({identity}); bool _has = true;" if has_id \
        else "_type_reduce _acc; bool _has = false;"
    sig_text = ", ".join(sig)
    # `_post` names the reduced value `a`; a parameter of that name stays out of it.
    post = [s for s in sig if _arg_names([s])[0] != "a"]
    post_sig, post_args = ", ".join(post), ", ".join(_arg_names(post))
    out_offsets = _dims_offsets(arrays, ndo, "_j", "_oshape", "o")
    red_offsets = _dims_offsets(arrays, ndr, "(_kx)", "_rshape", "r")
    y_offsets = _dims_offsets(out_names, ndo, "_j", "_oshape", "y")
    load_text = "\n            ".join(loads)
    store_text = "\n        ".join(stores)
    pack_types, packed = "", ""
    if vec > 1 and packs:
        pack_types = "".join(f"struct __align__({size}) _pk_{a} {{ {at} v[{vec}]; }};\n"
                             for a, _, at, size in packs)
        packed = _packed_loop(packs, vec, map_expr)
    return f"""{HEADER}
{typedefs(types)}
typedef {rtype} _type_reduce;
{preamble}
{pack_types}__device__ __forceinline__ _type_reduce _reduce(const _type_reduce& a, const _type_reduce& b) {{
    return ({reduce_expr});
}}
// Folds `v` (valid when `vh`) into the accumulator (valid when `has`).
__device__ __forceinline__ void _fold(_type_reduce& acc, bool& has, const _type_reduce& v, bool vh) {{
    if (vh) {{ acc = has ? _reduce(acc, v) : v; has = true; }}
}}

// One reduced element: its offsets from index `_kx`, its loads, the map, the fold.
#define _MAP_ONE(_kx) {{ \
        {red_offsets.replace(chr(10), " ")} \
        {load_text.replace(chr(10), " ")} \
        _fold(_acc, _has, (_type_reduce)({map_expr}), true); }}

__device__ __forceinline__ void _post(long long _j, const _type_reduce& a, {post_sig}) {{
    {y_offsets}
    {store_text}
    {post_map_expr};
}}

// `v` from the lane `d` above, word by word, so any accumulator type (a complex, a
// struct of the preamble) crosses the warp.
__device__ __forceinline__ _type_reduce _shfl_down(const _type_reduce& v, int d) {{
    unsigned _w[(sizeof(_type_reduce) + 3) / 4];
    memcpy(_w, &v, sizeof(_type_reduce));
    for (int _i = 0; _i < (int)((sizeof(_type_reduce) + 3) / 4); ++_i)
        _w[_i] = __shfl_down_sync(0xffffffffu, _w[_i], d);
    _type_reduce _r;
    memcpy(&_r, _w, sizeof(_type_reduce));
    return _r;
}}

// Folds (value, has-value) over the warp; lane 0 ends with the warp's.
__device__ __forceinline__ void _warp_fold(_type_reduce& _acc, bool& _has) {{
    for (int _d = 16; _d > 0; _d >>= 1) {{
        _type_reduce _v = _shfl_down(_acc, _d);
        bool _vh = __shfl_down_sync(0xffffffffu, (int)_has, _d) != 0;
        _fold(_acc, _has, _v, _vh);
    }}
}}

// Folds every thread's (value, has-value) over the block (blockDim.x a multiple of 32):
// each warp by shuffles, then the warps' results in warp 0. Thread 0 returns with the
// block's; the closing barrier frees the shared memory for the next output.
__device__ __forceinline__ void _block_fold(_type_reduce& _acc, bool& _has) {{
    extern __shared__ __align__(16) unsigned char _smem[];
    _type_reduce* _sv = (_type_reduce*)_smem;
    bool* _sh = (bool*)(_smem + 32 * sizeof(_type_reduce));
    const unsigned _lane = threadIdx.x % 32, _warp = threadIdx.x / 32;
    _warp_fold(_acc, _has);
    if (_lane == 0) {{
        _sv[_warp] = _acc;
        _sh[_warp] = _has;
    }}
    __syncthreads();
    if (_warp == 0) {{
        _has = _lane < blockDim.x / 32 && _sh[_lane];
        if (_has) _acc = _sv[_lane];
        _warp_fold(_acc, _has);
    }}
    __syncthreads();
}}

extern "C" __global__ void {name}({sig_text}) {{
    const long long _k0 = blockIdx.y * _chunk;
    const long long _k1 = min(_n_red, _k0 + _chunk);
    const long long _bd = blockDim.x;
    for (long long _j = blockIdx.x; _j < _n_out; _j += gridDim.x) {{
        {out_offsets}
        {init}
        long long _k = _k0 + threadIdx.x;
        {packed}
        // RED_UNROLL elements per step with no bounds check between them, so their
        // loads are in flight together; then the remainder one by one.
        for (; _k + {RED_UNROLL - 1} * _bd < _k1; _k += {RED_UNROLL} * _bd) {{
            {" ".join(f"_MAP_ONE(_k + {u} * _bd)" for u in range(RED_UNROLL))}
        }}
        for (; _k < _k1; _k += _bd) _MAP_ONE(_k)
        _block_fold(_acc, _has);
        if (threadIdx.x == 0) {{
            if (gridDim.y == 1) _post(_j, _acc, {post_args});
            else _partial[_j * gridDim.y + blockIdx.y] = _acc;
        }}
    }}
}}

extern "C" __global__ void {name}_final({sig_text}) {{
    // A block per output over its `_chunk` partial values.
    for (long long _j = blockIdx.x; _j < _n_out; _j += gridDim.x) {{
        _type_reduce _acc;
        bool _has = false;
        for (long long _c = threadIdx.x; _c < _chunk; _c += blockDim.x)
            _fold(_acc, _has, _partial[_j * _chunk + _c], true);
        _block_fold(_acc, _has);
        if (threadIdx.x == 0) _post(_j, _acc, {post_args});
    }}
}}

extern "C" __global__ void {name}_thread({sig_text}) {{
    for (long long _j = blockIdx.x * (long long)blockDim.x + threadIdx.x; _j < _n_out;
         _j += (long long)blockDim.x * gridDim.x) {{
        {out_offsets}
        {init}
        for (long long _k = 0; _k < _n_red; ++_k) _MAP_ONE(_k)
        _post(_j, _acc, {post_args});
    }}
}}
"""


def _packed_loop(packs, vec, map_expr):
    """The packed path of a reduction's block kernel: when every array's slice starts
    on its pack boundary (and the chunk start ``_k0`` on a pack), each thread folds
    whole packs ``_q`` of `vec` elements, two packs in flight, and leaves ``_k`` at the
    first element after the last whole pack for the element-wise loops to finish.
    `packs` holds (array name, bound C type, element C type, pack bytes)."""
    aligned = " && ".join(
        f"((unsigned long long)((const char*)_p_{a} + _oo_{a}) % {size} == 0)"
        for a, _, _, size in packs)

    def load(tag, q):
        return " ".join(f"const _pk_{a} _{tag}_{a} = ((const _pk_{a}*)((const char*)_p_{a} + "
                        f"_oo_{a}))[{q}];" for a, _, _, _ in packs)

    def fold(tag):
        return " ".join(
            "{ " + " ".join(f"const {b} {a} = ({b})_{tag}_{a}.v[{u}];" for a, b, _, _ in packs)
            + f" _fold(_acc, _has, (_type_reduce)({map_expr}), true); }}"
            for u in range(vec))

    return f"""if (_k0 % {vec} == 0 && {aligned}) {{
            const long long _q1 = _k1 / {vec};
            long long _q = _k0 / {vec} + threadIdx.x;
            for (; _q + _bd < _q1; _q += 2 * _bd) {{
                {load("a", "_q")} {load("b", "_q + _bd")}
                {fold("a")}
                {fold("b")}
            }}
            if (_q < _q1) {{
                {load("a", "_q")}
                {fold("a")}
            }}
            _k = _q1 * {vec} + threadIdx.x;
        }}"""


def _arg_names(sig):
    """The parameter names of a C parameter list (the last word of each)."""
    return [s.split()[-1] for s in sig]


__all__ = [
    "HEADER",
    "CTYPES_BY_DTYPE",
    "UNROLL",
    "RED_UNROLL",
    "ctype",
    "typedefs",
    "carray_type",
    "elementwise",
    "reduce_type_name",
    "reduction",
]
