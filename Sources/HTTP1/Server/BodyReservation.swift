import Synchronization

/// Bytes of a ``MemoryBudget`` held for one request's body, from the moment the request is
/// handed to the responder until the server is done serving it (the responder returned and
/// the response was written or abandoned). It belongs to the request, not to the socket: a
/// connection that closes meanwhile does not give the bytes back while a worker still
/// holds the body.
///
/// Thread-safe; releases exactly once. - Complexity: O(1)
final class BodyReservation: Sendable {
    let budget: MemoryBudget
    private let bytes: Atomic<Int>

    init(budget: MemoryBudget, bytes: Int) {
        self.budget = budget
        self.bytes = Atomic(bytes)
    }

    /// Gives the bytes back to the budget; later calls do nothing.
    func release() {
        budget.release(bytes.exchange(0, ordering: .relaxed))
    }
}
