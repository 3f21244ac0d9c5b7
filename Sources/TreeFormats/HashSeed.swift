/// The seed of the readers' hash tables of client-chosen bytes (ids, path names), drawn once
/// per process: a body whose keys collide under one process's hash does not under another's,
/// and nobody outside knows this one's.
let hashSeed = UInt64.random(in: 1 ... .max)
