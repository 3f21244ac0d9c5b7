/// The seed of the readers' hash tables of client-chosen bytes (ids, path names), drawn once
/// per process: a body whose keys collide under one process's hash does not under another's,
/// and nobody outside knows this one's.
let hashSeed = UInt64.random(in: 1 ... .max)

/// The last step of the readers' hashes: every bit of the state reaches every bit of the
/// result (MurmurHash3's 64-bit finalizer), so that the bucket, taken from the low bits,
/// depends on the seed and on every byte of the key. It cannot undo a collision of the
/// states themselves: multiply-and-shift over 8-byte blocks lets keys that differ in the
/// top bits of two blocks collide whatever the seed. Such keys are not valid UTF-8, which
/// every reader checks before it hashes, so a body cannot send them; a reader that hashes
/// bytes it has not validated needs a keyed per-block hash (SipHash) instead.
@inline(__always)
func finishHash(_ state: UInt64) -> UInt64 {
    var h = state
    h ^= h >> 33
    h = h &* 0xFF51_AFD7_ED55_8CCD
    h ^= h >> 33
    h = h &* 0xC4CE_B9FE_1A85_EC53
    return h ^ (h >> 33)
}
