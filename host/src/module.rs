//! The embedded kernels and their lookup tables.
//!
//! `build.rs` embeds the PTX and a cubin for sm_90. Hopper GPUs load the cubin directly
//! (no JIT at start); any other GPU, Volta on, loads the PTX and the driver compiles it
//! (and caches the result). Each kernel is looked up once, into arrays indexed by
//! op, dtype and variant, so a launch does no string formatting or driver lookup.

use std::ffi::{CString, c_void};

use cudarc::driver::{result, sys};
use gpupy_kernels::gemm;

use crate::dtype::DType;
use crate::error::{Error, Result, check};

static PTX: &str = concat!(include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx")), "\0");
static CUBIN_SM90: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/kernels.sm_90.cubin"));
/// The kernels that need sm_80 (tensor cores; see `build.rs`): PTX for sm_80 GPUs, a cubin
/// for sm_90. Not loaded below compute capability 8.0.
static PTX_SM80: &str = concat!(
    include_str!(concat!(env!("OUT_DIR"), "/kernels_sm80.ptx")),
    "\0"
);
static CUBIN_SM80_SM90: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/kernels_sm80.sm_90.cubin"));
/// The kernels that need sm_90 (float64 `mma` shapes): a cubin for sm_90, PTX for later
/// GPUs. Not loaded below compute capability 9.0.
static PTX_SM90: &str = concat!(
    include_str!(concat!(env!("OUT_DIR"), "/kernels_sm90.ptx")),
    "\0"
);
static CUBIN_SM90_SM90: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/kernels_sm90.sm_90.cubin"));

/// The kernels that need sm_90a (`wgmma`): a cubin for compute capability 9.0 only.
static CUBIN_SM90A: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/kernels_sm90a.sm_90a.cubin"));
/// `ptxas -v` output for every kernel, per architecture (registers, stack, spills).
pub static PTXAS_REPORT_SM90: &str = include_str!(concat!(env!("OUT_DIR"), "/ptxas.sm_90.txt"));
/// Name fragments of the kernels allowed a stack frame (libdevice's trigonometric
/// argument reduction; see `build.rs`), one per line.
pub static PTXAS_STACK_ALLOWED: &str = include_str!(concat!(env!("OUT_DIR"), "/stack_allowed.txt"));

/// A kernel handle. CUfunction is a raw pointer; handles are valid on any thread that has
/// the module's context bound, which every launch path ensures.
#[derive(Clone, Copy, Debug)]
pub struct Function(pub(crate) sys::CUfunction);
// SAFETY: see above; the handle itself is immutable.
unsafe impl Send for Function {}
unsafe impl Sync for Function {}

macro_rules! op_enum {
    ([$Enum:ident $loops:ident] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $Enum { $($Op),* }
        impl $Enum {
            pub const ALL: &'static [$Enum] = &[$($Enum::$Op),*];
            /// The kernel name stem, also NumPy's ufunc name.
            pub fn name(self) -> &'static str {
                match self { $($Enum::$Op => stringify!($op)),* }
            }
            /// The output dtype of the loop for input `dtype`, if the op has that loop
            /// (for bfloat16: its float32 loop's, computed there and rounded back; see
            /// `DType::compute`).
            pub fn output(self, dtype: DType) -> Option<DType> {
                let c = dtype.compute();
                if c != dtype {
                    return self.output(c).map(|o| if o == c { dtype } else { o });
                }
                gpupy_kernels::loops::$loops[self as usize].1
                    .iter()
                    .find(|l| DType::ALL[l.input] == dtype)
                    .map(|l| DType::ALL[l.output])
            }
            /// Input dtypes that have kernels.
            pub fn inputs(self) -> impl Iterator<Item = DType> {
                gpupy_kernels::loops::$loops[self as usize].1.iter().map(|l| DType::ALL[l.input])
            }
        }
    };
}
gpupy_kernels::for_each_binary_op!(op_enum, BinaryOp, BINARY_LOOPS);
gpupy_kernels::for_each_unary_op!(op_enum, UnaryOp, UNARY_LOOPS);
gpupy_kernels::for_each_reduce_op!(op_enum, ReduceOp, REDUCE_LOOPS);

impl ReduceOp {
    /// Bytes of the accumulator for input `dtype` (the partials of split launches).
    pub fn acc_bytes(self, dtype: DType) -> usize {
        let loops = gpupy_kernels::loops::REDUCE_LOOPS[self as usize].1;
        let k = loops
            .iter()
            .position(|l| DType::ALL[l.input] == dtype)
            .expect("acc_bytes is asked only for loops that exist");
        gpupy_kernels::loops::REDUCE_ACC_BYTES[self as usize][k]
    }
}

macro_rules! item_size_table {
    ([] $(($bytes:literal, $ty:ident))*) => {
        /// Item sizes with copy and fill kernels.
        pub const ITEM_SIZES: &[usize] = &[$($bytes),*];
    };
}
gpupy_kernels::for_each_item_size!(item_size_table);

macro_rules! float_dtype_table {
    ([] $(($D:ident, $ty:ident))*) => {
        /// Dtypes with matmul kernels so far.
        pub const FLOAT_DTYPES: &[DType] = &[$(DType::$D),*];
    };
}
gpupy_kernels::for_each_float_dtype!(float_dtype_table);

/// Elementwise kernel variants; see `kernels/src/elementwise.rs`. Binary ops have `Vv`,
/// `Vs` and `Strided`; unary ops and casts `Contig` and `Strided`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Vv,
    Vs,
    /// Binary ops over rows contiguous or broadcast in every operand (`args::Rows`).
    Rows,
    Contig,
    Strided,
}

const NDTYPES: usize = DType::ALL.len();

pub struct Kernels {
    /// `binary[op][dtype]`: (vv, vs, strided, rows) where the loop exists.
    binary: Vec<[Option<[Function; 4]>; NDTYPES]>,
    /// `unary[op][dtype]`: (contig, strided) where the loop exists.
    unary: Vec<[Option<[Function; 2]>; NDTYPES]>,
    /// `cast[from][to]`: (contig, strided).
    cast: Vec<[[Function; 2]; NDTYPES]>,
    /// By index in `ITEM_SIZES`.
    copy: Vec<Function>,
    fill: Vec<Function>,
    /// `reduce[op][dtype]`: (block, serial, merge) where the loop exists.
    reduce: Vec<[Option<[Function; 3]>; NDTYPES]>,
    /// By kernel family as listed in `gemm::SIMT_KINDS`, then by tile in its table.
    matmul: Vec<Vec<Function>>,
    /// Kernels of smaller families, looked up by name on first use.
    by_name: std::sync::Mutex<std::collections::HashMap<String, Function>>,
    module: Module,
    /// The sm_80 module (tensor-core kernels), on GPUs of compute capability 8.0 and up.
    sm80: Option<Module>,
    /// The sm_90 module (`gpupy_mma90_*`), on GPUs of compute capability 9.0 and up.
    sm90: Option<Module>,
    /// The sm_90a module (`gpupy_wgmma_*`), on GPUs of compute capability 9.0 exactly.
    sm90a: Option<Module>,
}

struct Module(sys::CUmodule);
// SAFETY: a module handle is usable from any thread with its context bound; never unloaded.
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

fn dtype_name(d: DType) -> &'static str {
    gpupy_kernels::loops::DTYPE_NAMES[d as usize]
}

impl Kernels {
    /// Loads the module for a GPU of compute capability `major.x`; the context must be
    /// bound. Called once per device.
    pub fn load(major: i32, minor: i32) -> Result<Kernels> {
        let image: *const c_void = match major {
            9 => CUBIN_SM90.as_ptr().cast(),
            _ => PTX.as_ptr().cast(),
        };
        // SAFETY: `image` is a complete cubin, or NUL-terminated PTX, that lives forever.
        let module = Module(check("cuModuleLoadData", unsafe {
            result::module::load_data(image)
        })?);
        let sm80 = if major >= 8 {
            let image: *const c_void = match major {
                9 => CUBIN_SM80_SM90.as_ptr().cast(),
                _ => PTX_SM80.as_ptr().cast(),
            };
            // SAFETY: as above.
            Some(Module(check("cuModuleLoadData", unsafe {
                result::module::load_data(image)
            })?))
        } else {
            None
        };
        let sm90 = if major >= 9 {
            let image: *const c_void = match major {
                9 => CUBIN_SM90_SM90.as_ptr().cast(),
                _ => PTX_SM90.as_ptr().cast(),
            };
            // SAFETY: as above.
            Some(Module(check("cuModuleLoadData", unsafe {
                result::module::load_data(image)
            })?))
        } else {
            None
        };
        let sm90a = if (major, minor) == (9, 0) {
            // SAFETY: as above.
            Some(Module(check("cuModuleLoadData", unsafe {
                result::module::load_data(CUBIN_SM90A.as_ptr().cast())
            })?))
        } else {
            None
        };
        let get = |name: String| -> Result<Function> {
            let c = CString::new(name.clone()).expect("kernel names have no NUL");
            // SAFETY: module is loaded; the name is a NUL-terminated C string.
            unsafe { result::module::get_function(module.0, c) }
                .map(Function)
                .map_err(|_| {
                    Error::NoDevice(format!(
                        "kernel {name} is missing from gpupy's module (a build problem)"
                    ))
                })
        };
        let stem = |op: &str, d: DType, v: &str| format!("gpupy_{op}_{}_{v}", dtype_name(d));
        let mut binary = Vec::new();
        for &op in BinaryOp::ALL {
            let mut row: [Option<[Function; 4]>; NDTYPES] = [None; NDTYPES];
            for d in op.inputs() {
                let n = op.name();
                row[d as usize] = Some([
                    get(stem(n, d, "vv"))?,
                    get(stem(n, d, "vs"))?,
                    get(stem(n, d, "strided"))?,
                    get(stem(n, d, "rows"))?,
                ]);
            }
            binary.push(row);
        }
        let mut unary = Vec::new();
        for &op in UnaryOp::ALL {
            let mut row: [Option<[Function; 2]>; NDTYPES] = [None; NDTYPES];
            for d in op.inputs() {
                row[d as usize] = Some([
                    get(stem(op.name(), d, "contig"))?,
                    get(stem(op.name(), d, "strided"))?,
                ]);
            }
            unary.push(row);
        }
        let mut cast = Vec::new();
        for from in DType::ALL {
            let mut row = Vec::with_capacity(NDTYPES);
            for to in DType::ALL {
                let base = format!("gpupy_cast_{}_{}", dtype_name(from), dtype_name(to));
                row.push([
                    get(format!("{base}_contig"))?,
                    get(format!("{base}_strided"))?,
                ]);
            }
            cast.push(
                row.try_into()
                    .map_err(|_| Error::Value("cast table size".into()))?,
            );
        }
        let copy = ITEM_SIZES
            .iter()
            .map(|b| get(format!("gpupy_copy_{b}_strided")))
            .collect::<Result<_>>()?;
        let fill = ITEM_SIZES
            .iter()
            .map(|b| get(format!("gpupy_fill_{b}")))
            .collect::<Result<_>>()?;
        let mut reduce = Vec::new();
        for &op in ReduceOp::ALL {
            let mut row: [Option<[Function; 3]>; NDTYPES] = [None; NDTYPES];
            for d in op.inputs() {
                let base = format!("gpupy_reduce_{}_{}", op.name(), dtype_name(d));
                row[d as usize] = Some([
                    get(format!("{base}_block"))?,
                    get(format!("{base}_serial"))?,
                    get(format!("{base}_merge"))?,
                ]);
            }
            reduce.push(row);
        }
        let matmul = gemm::SIMT_KINDS
            .iter()
            .map(|(ty, tiles)| {
                tiles
                    .iter()
                    .map(|tile| get(format!("gpupy_matmul_{ty}_{}", tile.name)))
                    .collect()
            })
            .collect::<Result<_>>()?;
        Ok(Kernels {
            binary,
            unary,
            cast,
            copy,
            fill,
            reduce,
            matmul,
            by_name: Default::default(),
            module,
            sm80,
            sm90,
            sm90a,
        })
    }

    /// Any kernel by its entry name, cached after the first lookup. For kernel families
    /// without a table of their own (indexing, creation); hot paths use the tables.
    pub fn function(&self, name: &str) -> Result<Function> {
        let mut map = self.by_name.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = map.get(name) {
            return Ok(*f);
        }
        let c =
            CString::new(name).map_err(|_| Error::Value(format!("bad kernel name {name:?}")))?;
        // SAFETY: the module is loaded and never unloaded; the name is NUL-terminated.
        let f = unsafe { result::module::get_function(self.module.0, c) }
            .map(Function)
            .map_err(|_| {
                Error::NoDevice(format!(
                    "kernel {name} is missing from gpupy's module (a build problem)"
                ))
            })?;
        map.insert(name.to_string(), f);
        Ok(f)
    }

    /// Whether the tensor-core kernels are loaded (compute capability 8.0 and up).
    pub fn has_tensor_cores(&self) -> bool {
        self.sm80.is_some()
    }

    /// Whether the sm_90 tensor-core kernels are loaded (compute capability 9.0 and up).
    pub fn has_sm90(&self) -> bool {
        self.sm90.is_some()
    }

    /// Whether the sm_90a `wgmma` kernels are loaded (compute capability 9.0).
    pub fn has_wgmma(&self) -> bool {
        self.sm90a.is_some()
    }

    /// A tensor-core kernel by entry name (`None` where its module is not loaded: below
    /// compute capability 8.0, 9.0 for `gpupy_mma90_*`, other than 9.0 for
    /// `gpupy_wgmma_*`), with its dynamic
    /// shared-memory limit raised to `smem_bytes` (the default limit is 48 KiB). Cached
    /// after the first lookup.
    pub fn tensor_core_function(&self, name: &str, smem_bytes: u32) -> Result<Option<Function>> {
        let module = if name.starts_with("gpupy_wgmma_") {
            &self.sm90a
        } else if name.starts_with("gpupy_mma90_") {
            &self.sm90
        } else {
            &self.sm80
        };
        let Some(module) = module else {
            return Ok(None);
        };
        let mut map = self.by_name.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = map.get(name) {
            return Ok(Some(*f));
        }
        let c =
            CString::new(name).map_err(|_| Error::Value(format!("bad kernel name {name:?}")))?;
        // SAFETY: the module is loaded and never unloaded; the name is NUL-terminated.
        let f = unsafe { result::module::get_function(module.0, c) }
            .map(Function)
            .map_err(|_| {
                Error::NoDevice(format!(
                    "kernel {name} is missing from gpupy's tensor-core modules (a build problem)"
                ))
            })?;
        if smem_bytes > 48 * 1024 {
            // SAFETY: a valid function handle; the attribute only raises the limit of
            // dynamic shared memory its launches may ask for.
            check("cuFuncSetAttribute", unsafe {
                sys::cuFuncSetAttribute(
                    f.0,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    smem_bytes as i32,
                )
                .result()
            })?;
        }
        map.insert(name.to_string(), f);
        Ok(Some(f))
    }

    /// The binary kernel for input `dtype`, or NumPy's TypeError when the op has no loop.
    pub fn binary(&self, op: BinaryOp, dtype: DType, variant: Variant) -> Result<Function> {
        let fs =
            self.binary[op as usize][dtype as usize].ok_or_else(|| no_loop(op.name(), dtype))?;
        Ok(match variant {
            Variant::Vv => fs[0],
            Variant::Vs => fs[1],
            Variant::Rows => fs[3],
            _ => fs[2],
        })
    }

    pub fn unary(&self, op: UnaryOp, dtype: DType, variant: Variant) -> Result<Function> {
        let fs =
            self.unary[op as usize][dtype as usize].ok_or_else(|| no_loop(op.name(), dtype))?;
        Ok(if variant == Variant::Strided {
            fs[1]
        } else {
            fs[0]
        })
    }

    pub fn cast(&self, from: DType, to: DType, variant: Variant) -> Function {
        self.cast[from as usize][to as usize][(variant == Variant::Strided) as usize]
    }

    pub fn copy(&self, itemsize: usize) -> Function {
        self.copy[size_index(itemsize)]
    }

    pub fn fill(&self, itemsize: usize) -> Function {
        self.fill[size_index(itemsize)]
    }

    /// The (block, serial, merge) kernels of a reduction, or TypeError without a loop.
    pub fn reduce(&self, op: ReduceOp, dtype: DType) -> Result<[Function; 3]> {
        self.reduce[op as usize][dtype as usize].ok_or_else(|| {
            Error::Type(format!(
                "gpupy has no {} reduction for {} arrays",
                op.name(),
                dtype.name()
            ))
        })
    }

    /// The SIMT matmul kernel of family `kind` (an index into `gemm::SIMT_KINDS`) for
    /// tile `tile` (an index into that family's tile table).
    pub fn matmul(&self, kind: usize, tile: usize) -> Function {
        self.matmul[kind][tile]
    }
}

/// NumPy's error for a ufunc without a loop for the dtype.
pub fn no_loop(op: &str, dtype: DType) -> Error {
    Error::Type(format!(
        "ufunc '{op}' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe'' (gpupy has no {op} kernel for {})",
        dtype.name()
    ))
}

/// Index of a dtype in `FLOAT_DTYPES`, or NumPy-style TypeError naming the op.
pub fn float_index(dtype: DType, op: &str) -> Result<usize> {
    FLOAT_DTYPES.iter().position(|&d| d == dtype).ok_or_else(|| {
        Error::Type(format!(
            "gpupy's {op} supports float32 and float64 so far, not {}; convert with .astype('float32') or .astype('float64')",
            dtype.name()
        ))
    })
}

fn size_index(itemsize: usize) -> usize {
    ITEM_SIZES
        .iter()
        .position(|&b| b == itemsize)
        .expect("every dtype's item size has copy and fill kernels")
}

/// Launch configuration plus arguments. Params are pointers to each argument's value, in
/// the kernel's parameter order.
///
/// # Safety
/// `params` must match the kernel's parameter list in number, order and types, and
/// every pointer the kernel will dereference must be valid for the accesses the kernel's
/// contract allows (the callers in `ops/` check layouts against buffers first).
pub unsafe fn launch(
    f: Function,
    grid: (u32, u32, u32),
    block: u32,
    shared_bytes: u32,
    params: &mut [*mut c_void],
) -> Result<()> {
    debug_assert!(grid.0 >= 1 && grid.1 >= 1 && grid.2 >= 1 && (1..=1024).contains(&block));
    // SAFETY: forwarded contract; null stream = the legacy default stream of the bound context.
    check("cuLaunchKernel", unsafe {
        result::launch_kernel(
            f.0,
            grid,
            (block, 1, 1),
            shared_bytes,
            std::ptr::null_mut(),
            params,
        )
    })
}
