//! Coordinates on an n-d grid of any number of axes (up to 64), for the labelling and
//! bounding-box kernels: the axes are read from a small device table (innermost first)
//! instead of a launch struct, so no dimension limit applies and no struct is indexed
//! at run time.
//!
//! A neighbour of an element is a linear offset that is valid only where the element is
//! not on the low (or high) edge of the axes the offset steps down (or up) along: the
//! element's [`edges`] (a bit per axis) against the neighbour's masks, no coordinates
//! kept.

/// One axis of a C-contiguous grid: its extent and `args::fast_divisor` of it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axis {
    pub extent: u64,
    pub magic: u32,
    pub shift: u32,
}

impl Axis {
    pub const fn new(extent: u64) -> Axis {
        let (magic, shift) = crate::args::fast_divisor(extent);
        Axis {
            extent,
            magic,
            shift,
        }
    }

    /// The `#[repr(C)]` bytes the kernels read from a device table (checked below).
    pub fn to_bytes(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&self.extent.to_le_bytes());
        b[8..12].copy_from_slice(&self.magic.to_le_bytes());
        b[12..].copy_from_slice(&self.shift.to_le_bytes());
        b
    }

    /// (quotient, remainder) of `i / extent`: by the fast divisor when `small` (the
    /// grid holds fewer than 2^31 elements), else by a real division.
    #[inline(always)]
    pub fn divmod(self, i: u64, small: bool) -> (u64, u64) {
        if small {
            let q = if self.magic == 0 {
                i
            } else {
                ((i * self.magic as u64) >> 32) >> self.shift
            };
            (q, i - q * self.extent)
        } else {
            (i / self.extent, i % self.extent)
        }
    }
}

/// A neighbour: the element `offset` away (C order), which exists when the element is on
/// none of the low edges `low` and none of the high edges `high` (bit `d`: axis `d`
/// counted innermost first).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Neighbour {
    pub offset: i64,
    pub low: u64,
    pub high: u64,
}

// The tables' bytes (`to_bytes`) follow the structs' layouts.
const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(
        size_of::<Axis>() == 16 && offset_of!(Axis, magic) == 8 && offset_of!(Axis, shift) == 12
    );
    assert!(size_of::<Neighbour>() == 24);
    assert!(offset_of!(Neighbour, low) == 8 && offset_of!(Neighbour, high) == 16);
};

impl Neighbour {
    /// The `#[repr(C)]` bytes the kernels read from a device table.
    pub fn to_bytes(self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[..8].copy_from_slice(&self.offset.to_le_bytes());
        b[8..16].copy_from_slice(&self.low.to_le_bytes());
        b[16..].copy_from_slice(&self.high.to_le_bytes());
        b
    }

    /// The neighbour of element `i` on the edges `(low, high)`, if it is inside the grid.
    #[inline(always)]
    pub fn of(self, i: u64, (low, high): (u64, u64)) -> Option<u64> {
        if self.low & low == 0 && self.high & high == 0 {
            Some(i.wrapping_add(self.offset as u64))
        } else {
            None
        }
    }

    /// The neighbour one step along each axis of `step` (C order, each -1, 0 or 1) in a
    /// grid of `shape` (C order).
    pub fn from_step(shape: &[usize], step: &[i64]) -> Neighbour {
        let nd = shape.len();
        let (mut offset, mut stride, mut low, mut high) = (0i64, 1i64, 0u64, 0u64);
        for k in (0..nd).rev() {
            let bit = 1u64 << (nd - 1 - k);
            match step[k] {
                s if s < 0 => low |= bit,
                s if s > 0 => high |= bit,
                _ => {}
            }
            offset += step[k] * stride;
            stride *= shape[k] as i64;
        }
        Neighbour { offset, low, high }
    }
}

/// The edges element `i` lies on in a grid of `ndim` axes `axis(0..ndim)` (innermost
/// first): bit `d` of the first mask where its coordinate along axis `d` is 0, of the
/// second where it is the last.
#[inline(always)]
pub fn edges(i: u64, ndim: usize, small: bool, axis: impl Fn(usize) -> Axis) -> (u64, u64) {
    let (mut low, mut high, mut rem) = (0u64, 0u64, i);
    for d in 0..ndim {
        let a = axis(d);
        let (q, c) = a.divmod(rem, small);
        if c == 0 {
            low |= 1 << d;
        }
        if c + 1 == a.extent {
            high |= 1 << d;
        }
        rem = q;
    }
    (low, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_exist_inside_the_grid_only() {
        let shape = [3usize, 4, 5];
        let axes: Vec<Axis> = shape.iter().rev().map(|&n| Axis::new(n as u64)).collect();
        let n = 60u64;
        for step in [
            [-1i64, 0, 1],
            [1, 1, 1],
            [0, -1, -1],
            [0, 0, 1],
            [-1, -1, -1],
        ] {
            let nb = Neighbour::from_step(&shape, &step);
            for i in 0..n {
                let c = [(i / 20) as i64, (i / 5 % 4) as i64, (i % 5) as i64];
                let t: Vec<i64> = (0..3).map(|k| c[k] + step[k]).collect();
                let inside = (0..3).all(|k| (0..shape[k] as i64).contains(&t[k]));
                let want = inside.then(|| (t[0] * 20 + t[1] * 5 + t[2]) as u64);
                for small in [true, false] {
                    let e = edges(i, 3, small, |d| axes[d]);
                    assert_eq!(nb.of(i, e), want, "{step:?} {i}");
                }
            }
        }
    }
}
