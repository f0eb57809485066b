//! NumPy broadcasting: shapes align at their last axis; an axis of length 1 stretches
//! (stride 0) to match the other.

use super::strides::{Layout, shape_str};
use crate::error::{Error, Result};

/// The broadcast shape of several operands, with NumPy's error text.
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let ndim = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; ndim];
    for s in shapes {
        for (o, &n) in out[ndim - s.len()..].iter_mut().zip(s.iter()) {
            if *o == 1 {
                *o = n;
            } else if n != 1 && n != *o {
                let all: Vec<String> = shapes
                    .iter()
                    .map(|s| shape_str(s).replace(", ", ","))
                    .collect();
                // NumPy's message ends with a space after each shape.
                return Err(Error::Value(format!(
                    "operands could not be broadcast together with shapes {} ",
                    all.join(" ")
                )));
            }
        }
    }
    Ok(out)
}

impl Layout {
    /// A view of this layout with `shape` (NumPy's `broadcast_to`).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        let extra = shape.len().checked_sub(self.ndim()).ok_or_else(|| {
            Error::Value(format!(
                "input operand has more dimensions than allowed by the axis remapping: cannot broadcast {} to {}",
                shape_str(&self.shape),
                shape_str(shape)
            ))
        })?;
        let mut strides = vec![0isize; shape.len()];
        for (i, (&n, &s)) in self.shape.iter().zip(&self.strides).enumerate() {
            let target = shape[extra + i];
            if n == target {
                strides[extra + i] = s;
            } else if n != 1 {
                return Err(Error::Value(format!(
                    "operands could not be broadcast together with remapped shapes [original->remapped]: {}  and requested shape {}",
                    shape_str(&self.shape).replace(", ", ","),
                    shape_str(shape).replace(", ", ",")
                )));
            }
        }
        Ok(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_broadcast_like_numpy() {
        assert_eq!(
            broadcast_shapes(&[&[8, 1, 6], &[7, 1]]).unwrap(),
            vec![8, 7, 6]
        );
        assert_eq!(broadcast_shapes(&[&[], &[3]]).unwrap(), vec![3]);
        assert_eq!(broadcast_shapes(&[&[0, 3], &[1, 3]]).unwrap(), vec![0, 3]);
        let e = broadcast_shapes(&[&[2, 3], &[4]]).unwrap_err();
        assert_eq!(
            e,
            Error::Value("operands could not be broadcast together with shapes (2,3) (4,) ".into())
        );
    }

    #[test]
    fn broadcast_to_uses_zero_strides() {
        let l = Layout::contiguous(&[3, 1])
            .broadcast_to(&[2, 3, 4])
            .unwrap();
        assert_eq!(l.strides, vec![0, 1, 0]);
        assert!(Layout::contiguous(&[3]).broadcast_to(&[4]).is_err());
        assert!(Layout::contiguous(&[2, 3]).broadcast_to(&[3]).is_err());
    }
}
