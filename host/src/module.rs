//! The embedded kernels and their lookup tables.
//!
//! `build.rs` embeds the PTX and cubins for sm_80 and sm_90. A GPU whose major version
//! has a cubin loads it directly (no JIT at start); any other GPU, Volta on, loads the
//! PTX and the driver compiles it. Each kernel is looked up once, into arrays indexed by
//! op, dtype and variant, so a launch does no string formatting or driver lookup.

use std::ffi::{CString, c_void};

use cudarc::driver::{result, sys};
use gpupy_kernels::gemm;

use crate::dtype::DType;
use crate::error::{Error, Result, check};

static PTX: &str = concat!(include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx")), "\0");
static CUBIN_SM80: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/kernels.sm_80.cubin"));
static CUBIN_SM90: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/kernels.sm_90.cubin"));

/// `ptxas -v` output for every kernel, per architecture (registers, stack, spills).
pub static PTXAS_REPORT_SM90: &str = include_str!(concat!(env!("OUT_DIR"), "/ptxas.sm_90.txt"));

/// A kernel handle. CUfunction is a raw pointer; handles are valid on any thread that has
/// the module's context bound, which every launch path ensures.
#[derive(Clone, Copy, Debug)]
pub struct Function(pub(crate) sys::CUfunction);
// SAFETY: see above; the handle itself is immutable.
unsafe impl Send for Function {}
unsafe impl Sync for Function {}

macro_rules! binary_op_enum {
    ([] $(($Op:ident, $op:ident))*) => {
        /// The binary elementwise ops that have kernels (from the kernel crate's table).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum BinaryOp { $($Op),* }
        impl BinaryOp {
            pub const ALL: &'static [BinaryOp] = &[$(BinaryOp::$Op),*];
            /// The kernel name stem, also NumPy's ufunc name.
            pub fn name(self) -> &'static str {
                match self { $(BinaryOp::$Op => stringify!($op)),* }
            }
        }
    };
}
gpupy_kernels::for_each_binary_op!(binary_op_enum);

macro_rules! float_dtype_table {
    ([] $(($D:ident, $ty:ident))*) => {
        /// Dtypes with arithmetic kernels, and their names in kernel entry points.
        pub const FLOAT_DTYPES: &[(DType, &str)] = &[$((DType::$D, stringify!($ty))),*];
    };
}
gpupy_kernels::for_each_float_dtype!(float_dtype_table);

macro_rules! item_size_table {
    ([] $(($bytes:literal, $ty:ident))*) => {
        /// Item sizes with copy and fill kernels.
        pub const ITEM_SIZES: &[usize] = &[$($bytes),*];
    };
}
gpupy_kernels::for_each_item_size!(item_size_table);

/// Elementwise kernel variants; see `kernels/src/elementwise.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Vv,
    Vs,
    Sv,
    Strided,
}
const VARIANTS: [(Variant, &str); 4] = [
    (Variant::Vv, "vv"),
    (Variant::Vs, "vs"),
    (Variant::Sv, "sv"),
    (Variant::Strided, "strided"),
];

pub struct Kernels {
    /// `binary[op][float dtype][variant]`.
    binary: Vec<Vec<[Function; 4]>>,
    /// `cast[from float dtype][to float dtype]`, strided.
    cast: Vec<Vec<Function>>,
    /// By index in `ITEM_SIZES`.
    copy: Vec<Function>,
    fill: Vec<Function>,
    /// By float dtype.
    sum: Vec<Function>,
    /// By float dtype, then by tile as listed in `gemm::F32_TILES` / `F64_TILES`.
    matmul: Vec<Vec<Function>>,
    _module: Module,
}

struct Module(sys::CUmodule);
// SAFETY: a module handle is usable from any thread with its context bound; never unloaded.
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

impl Kernels {
    /// Loads the module for a GPU of compute capability `major.x`; the context must be
    /// bound. Called once per device.
    pub fn load(major: i32) -> Result<Kernels> {
        let image: *const c_void = match major {
            9 => CUBIN_SM90.as_ptr().cast(),
            8 => CUBIN_SM80.as_ptr().cast(),
            _ => PTX.as_ptr().cast(),
        };
        // SAFETY: `image` is a complete cubin, or NUL-terminated PTX, that lives forever.
        let module = Module(check("cuModuleLoadData", unsafe {
            result::module::load_data(image)
        })?);
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
        let floats = || FLOAT_DTYPES.iter().map(|&(_, t)| t);
        let binary = BinaryOp::ALL
            .iter()
            .map(|op| {
                floats()
                    .map(|t| {
                        let v =
                            |i: usize| get(format!("gpupy_{}_{t}_{}", op.name(), VARIANTS[i].1));
                        Ok([v(0)?, v(1)?, v(2)?, v(3)?])
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        let cast = floats()
            .map(|from| {
                floats()
                    .map(|to| get(format!("gpupy_cast_{from}_{to}_strided")))
                    .collect()
            })
            .collect::<Result<Vec<_>>>()?;
        let copy = ITEM_SIZES
            .iter()
            .map(|b| get(format!("gpupy_copy_{b}_strided")))
            .collect::<Result<_>>()?;
        let fill = ITEM_SIZES
            .iter()
            .map(|b| get(format!("gpupy_fill_{b}")))
            .collect::<Result<_>>()?;
        let sum = floats()
            .map(|t| get(format!("gpupy_sum_{t}_contig")))
            .collect::<Result<_>>()?;
        let tiles = [gemm::F32_TILES, gemm::F64_TILES];
        let matmul = floats()
            .zip(tiles)
            .map(|(t, tiles)| {
                tiles
                    .iter()
                    .map(|tile| get(format!("gpupy_matmul_{t}_{}", tile.name)))
                    .collect()
            })
            .collect::<Result<_>>()?;
        Ok(Kernels {
            binary,
            cast,
            copy,
            fill,
            sum,
            matmul,
            _module: module,
        })
    }

    pub fn binary(&self, op: BinaryOp, dtype: DType, variant: Variant) -> Result<Function> {
        let d = float_index(dtype, op.name())?;
        Ok(self.binary[op as usize][d][variant as usize])
    }

    pub fn cast(&self, from: DType, to: DType) -> Result<Function> {
        Ok(self.cast[float_index(from, "astype")?][float_index(to, "astype")?])
    }

    pub fn copy(&self, itemsize: usize) -> Function {
        self.copy[size_index(itemsize)]
    }

    pub fn fill(&self, itemsize: usize) -> Function {
        self.fill[size_index(itemsize)]
    }

    pub fn sum(&self, dtype: DType) -> Result<Function> {
        Ok(self.sum[float_index(dtype, "sum")?])
    }

    /// The kernel for tile `tile` (an index into the dtype's tile table).
    pub fn matmul(&self, dtype: DType, tile: usize) -> Result<Function> {
        Ok(self.matmul[float_index(dtype, "matmul")?][tile])
    }
}

/// Index of a dtype in `FLOAT_DTYPES`, or NumPy-style TypeError naming the op.
pub fn float_index(dtype: DType, op: &str) -> Result<usize> {
    FLOAT_DTYPES.iter().position(|&(d, _)| d == dtype).ok_or_else(|| {
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
