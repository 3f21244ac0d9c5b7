extension Dictionary {
    /// Every entry's index, in an array that holds no reference to the dictionary. Changing
    /// values while iterating `values.indices` (which keeps the dictionary's storage) would
    /// copy the storage, and each value changed through it would copy its own buffers.
    var indexList: [Index] { Array(indices) }
}
