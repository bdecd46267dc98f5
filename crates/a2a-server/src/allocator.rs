//! mimalloc as the binary's global allocator, through its plain entry points.
//!
//! The workspace's one unsafe code (`unsafe_code` is denied everywhere else): a `GlobalAlloc`
//! cannot be written without it.
//!
//! The `mimalloc` crate's `GlobalAlloc` calls `mi_malloc_aligned` for every allocation: an
//! alignment check per call, and for blocks over 1 KiB (a request body, a boxed future) a
//! fallback path that costs several times mimalloc's own. Nearly every Rust allocation asks for
//! an alignment `mi_malloc` gives anyway (every block is aligned to the smaller of its size and
//! 16 bytes), so this one takes the aligned entry points only for the layouts that need them:
//! the rule std's `System` allocator uses for `malloc`. Measured in `docs/benchmarks.md`
//! (third pass).

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc, mi_zalloc_aligned,
};

/// The alignment mimalloc guarantees for any block of at least this size (`MI_MAX_ALIGN_SIZE`).
const MAX_PLAIN_ALIGN: usize = 16;

/// Whether `mi_malloc` (and `mi_realloc`) of `size` bytes is aligned enough for `align`.
fn plain(align: usize, size: usize) -> bool {
    align <= MAX_PLAIN_ALIGN && align <= size
}

/// The global allocator of the `a2a-server` binary.
pub(crate) struct MiMalloc;

// SAFETY: every method hands the layout's size (and, when the plain entry points do not
// guarantee it, its alignment) to mimalloc, whose blocks stay valid until `mi_free`; mimalloc is
// thread-safe and `mi_free` takes a block from any of its entry points.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi_malloc(layout.size()).cast()
            } else {
                mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi_zalloc(layout.size()).cast()
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator, i.e. from mimalloc.
        unsafe { mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator; the new block keeps the layout's alignment.
        unsafe {
            if plain(layout.align(), new_size) {
                mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layout_gets_its_alignment_and_keeps_its_bytes() {
        let allocator = MiMalloc;
        for align in [1, 2, 4, 8, 16, 32, 64, 128, 4096] {
            for size in [1, 3, 8, 15, 16, 17, 100, 1024, 1025, 5000, 70_000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; every block is freed by the same allocator.
                unsafe {
                    let p = allocator.alloc(layout);
                    assert!(!p.is_null() && p as usize % align == 0, "alloc {size} / {align}");
                    p.write_bytes(0xA5, size);
                    let grown = allocator.realloc(p, layout, size * 3);
                    assert!(grown as usize % align == 0, "realloc {size} / {align}");
                    assert!((0..size).all(|i| *grown.add(i) == 0xA5), "realloc kept the bytes");
                    allocator.dealloc(grown, Layout::from_size_align(size * 3, align).unwrap());
                    let z = allocator.alloc_zeroed(layout);
                    assert!(z as usize % align == 0 && (0..size).all(|i| *z.add(i) == 0), "zeroed {size}");
                    allocator.dealloc(z, layout);
                }
            }
        }
    }
}
