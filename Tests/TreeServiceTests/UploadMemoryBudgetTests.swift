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

    @Test func aParseThatDoesNotFitIsRefused() {
        // Room for the body but not for twice its size more.
        let budget = MemoryBudget(capacity: 2 * Self.body.count - 1)
        let response = upload(budget)
        #expect(response.status == 503)
        #expect(response.headers["retry-after"] != nil)
        #expect(budget.reserved == 0)
    }

    @Test func aParseThatFitsIsGivenBackAfterwards() {
        let budget = MemoryBudget(capacity: 2 * Self.body.count)
        #expect(upload(budget).status == 201)
        #expect(budget.reserved == 0)
        // Something else holds the budget: the same upload is refused.
        #expect(budget.tryReserve(1))
        #expect(upload(budget).status == 503)
    }
}
