import HTTP1
import Testing
import TreeService

/// An upload's parse counts in the server's memory budget (``HTTPRequest/memoryBudget``)
/// beside its body while it runs: refused with 503 and `Retry-After` when it does not fit,
/// given back afterwards.
@Suite struct UploadMemoryBudgetTests {
    static let body = Array(#"{"nodes":[{"title":"a","children":[{"title":"b"}]},{"title":"c"}]}"#.utf8)

    func upload(_ budget: MemoryBudget, target: String = "/sessions") -> HTTPResponse {
        let service = TreeService(configuration: ServiceConfiguration())
        var request = HTTPRequest(method: "POST", target: target, headers: ["Content-Type": "application/json"], body: Self.body)
        request.memoryBudget = budget
        return service.respond(to: request)
    }

    // In a server the body itself is already reserved when the service runs; here the test
    // reserves it, so the parse finds what a server would leave.

    @Test func aParseThatDoesNotFitNowIsRefusedWithRetryAfter() {
        let budget = MemoryBudget(capacity: 3 * Self.body.count)
        #expect(budget.tryReserve(Self.body.count + 1))  // the body and one byte of another
        let response = upload(budget)
        #expect(response.status == 503)
        #expect(response.headers["retry-after"] != nil)
        #expect(budget.reserved == Self.body.count + 1)
    }

    @Test func aParseThatFitsIsGivenBackAfterwards() {
        let budget = MemoryBudget(capacity: 3 * Self.body.count)
        #expect(budget.tryReserve(Self.body.count))
        #expect(upload(budget).status == 201)
        #expect(budget.reserved == Self.body.count)
    }

    @Test func aParseThatCouldNeverFitIs413() {
        let budget = MemoryBudget(capacity: 3 * Self.body.count - 1)
        #expect(budget.tryReserve(Self.body.count))
        let response = upload(budget)
        #expect(response.status == 413)
        #expect(budget.reserved == Self.body.count)
    }
}
