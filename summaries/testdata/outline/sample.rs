use std::io;
pub struct S { a: i32 }
impl S { pub fn new() -> Self { S{a:1} } }
impl fmt::Display for S { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) } }
pub trait T { fn m(&self); }
mod inner { fn x() {} }
