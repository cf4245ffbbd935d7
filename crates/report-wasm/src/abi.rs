//! The module's C ABI: bytes in, JSON out, a document by a number.
//!
//! A host (JavaScript, `editors/web/report-wasm.mjs`) writes into buffers
//! it asks for with [`rl_alloc`]; [`rl_open`] and [`rl_call`] take them
//! over. An answer stays in the module's reply buffer until the next call:
//! [`rl_reply`] is where it starts, the call's return value its length.
//! Chosen over wasm-bindgen for needing no generated glue and no tool of a
//! matching version (BENCHMARKS.md compares the two).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::{Value, json};

use crate::Document;

thread_local! {
    /// Open documents by handle. A handle is never given twice, so a
    /// closed one cannot answer for another document; 0 is none.
    static DOCUMENTS: RefCell<BTreeMap<u32, Rc<Document>>> = const { RefCell::new(BTreeMap::new()) };
    static LAST_HANDLE: Cell<u32> = const { Cell::new(0) };
    static REPLY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of `len` bytes for the host to fill, given back by the call it
/// is passed to (or by [`rl_free`]).
#[unsafe(no_mangle)]
pub extern "C" fn rl_alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast()
}

/// Gives back a buffer of [`rl_alloc`] that no call took.
///
/// # Safety
/// `ptr` and `len` are those of one [`rl_alloc`], not given back yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rl_free(ptr: *mut u8, len: usize) {
    // SAFETY: the caller passes an allocation of `rl_alloc` exactly once.
    drop(unsafe { take(ptr, len) });
}

/// Opens a document: `text` (its bytes, UTF-8 or not) named `name` (UTF-8);
/// both buffers are taken. Its handle: never 0, never given before.
///
/// # Safety
/// Each pointer and length are those of one [`rl_alloc`], not given back yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rl_open(
    text: *mut u8,
    text_len: usize,
    name: *mut u8,
    name_len: usize,
) -> u32 {
    // SAFETY: as the caller promises.
    let (text, name) = unsafe { (take(text, text_len), take(name, name_len)) };
    let document = Document::open(text, &String::from_utf8_lossy(&name));
    // Four billion opens would come back to 1: not within one page's life.
    let handle = LAST_HANDLE.get().wrapping_add(1).max(1);
    LAST_HANDLE.set(handle);
    DOCUMENTS.with_borrow_mut(|documents| documents.insert(handle, Rc::new(document)));
    handle
}

/// Closes a document; an unknown handle is ignored.
#[unsafe(no_mangle)]
pub extern "C" fn rl_close(handle: u32) {
    DOCUMENTS.with_borrow_mut(|documents| documents.remove(&handle));
}

/// Answers a request, `{"method": ..., "params": {...}}` in UTF-8 (the
/// buffer is taken), about document `handle`: the length of the reply,
/// `{"result": ...}` or `{"error": "..."}`, at [`rl_reply`].
///
/// # Safety
/// `request` and `len` are those of one [`rl_alloc`], not given back yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rl_call(handle: u32, request: *mut u8, len: usize) -> usize {
    // SAFETY: as the caller promises.
    let request = unsafe { take(request, len) };
    // Not borrowed while the core answers: should it trap (a panic, memory
    // exhausted), the documents stay usable for the next call.
    let document = DOCUMENTS.with_borrow(|documents| documents.get(&handle).cloned());
    let reply = answer(document.as_deref(), &request);
    let bytes =
        serde_json::to_vec(&reply).unwrap_or_else(|_| br#"{"error":"unwritable"}"#.to_vec());
    REPLY.with_borrow_mut(|out| {
        *out = bytes;
        out.len()
    })
}

/// Where the last reply starts.
#[unsafe(no_mangle)]
pub extern "C" fn rl_reply() -> *const u8 {
    REPLY.with_borrow(|out| out.as_ptr())
}

fn answer(document: Option<&Document>, request: &[u8]) -> Value {
    let Some(document) = document else {
        return json!({"error": "no such document: it was closed, or never opened"});
    };
    let request: Value = match serde_json::from_slice(request) {
        Ok(request) => request,
        Err(e) => return json!({"error": format!("the request is not JSON: {e}")}),
    };
    let Some(method) = request.get("method").and_then(Value::as_str) else {
        return json!({"error": "the request has no `method`"});
    };
    let params = request.get("params").unwrap_or(&Value::Null);
    match document.call(method, params) {
        Ok(result) => json!({"result": result}),
        Err(error) => json!({"error": error}),
    }
}

/// The buffer of one [`rl_alloc`], owned again.
///
/// # Safety
/// `ptr` and `len` are those of one [`rl_alloc`], not given back yet.
unsafe fn take(ptr: *mut u8, len: usize) -> Vec<u8> {
    // SAFETY: `rl_alloc` made a boxed slice of exactly `len` bytes at `ptr`.
    unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) }.into_vec()
}
