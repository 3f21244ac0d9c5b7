import HTTPTestSupport
import Dispatch
import Synchronization
import Testing
@testable import HTTP1

/// The shared budget for request bodies: its accounting, and the connection state machine
/// reserving and releasing bodies against it (no sockets, a fake clock).
@Suite struct MemoryBudgetTests {
    // MARK: Accounting

    @Test func reservationsFitOrReserveNothing() {
        let budget = MemoryBudget(capacity: 100)
        #expect(budget.tryReserve(60))
        #expect(!budget.tryReserve(41))
        #expect(budget.reserved == 60)
        #expect(budget.tryReserve(40))
        #expect(budget.reserved == 100)
        #expect(!budget.tryReserve(1))
        #expect(budget.tryReserve(0))
        budget.release(60)
        #expect(budget.reserved == 40)
        #expect(budget.tryReserve(60))
        budget.release(100)
        #expect(budget.reserved == 0)
        #expect(!budget.tryReserve(101))
        #expect(budget.reserved == 0)
    }

    @Test func concurrentReservationsNeverExceedTheCapacity() {
        let budget = MemoryBudget(capacity: 1000)
        let peak = Atomic<Int>(0)
        let granted = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for i in 0..<5000 {
                let n = (i * 7 + worker * 13) % 300 + 1
                guard budget.tryReserve(n) else { continue }
                granted.add(1, ordering: .relaxed)
                _ = peak.max(budget.reserved, ordering: .relaxed)
                budget.release(n)
            }
        }
        #expect(budget.reserved == 0)
        #expect(peak.load(ordering: .relaxed) <= 1000)
        #expect(granted.load(ordering: .relaxed) > 0)
    }

    @Test func theDefaultIsAQuarterOfMemory() {
        #expect(MemoryBudget.availableMemory > 0)
        #expect(MemoryBudget.defaultCapacity == MemoryBudget.availableMemory / 4)
        #expect(HTTPServerConfiguration().bodyBudgetCapacity == nil)
        #expect(HTTPServer(responder: TestResponder()).bodyBudget.capacity == MemoryBudget.defaultCapacity)
    }

    @Test func everyServerHasItsOwnBudget() {
        var configuration = HTTPServerConfiguration()
        configuration.bodyBudgetCapacity = 1000
        let copy = configuration
        let a = HTTPServer(configuration: configuration, responder: TestResponder())
        let b = HTTPServer(configuration: copy, responder: TestResponder())
        #expect(a.bodyBudget !== b.bodyBudget)
        #expect(a.bodyBudget.capacity == 1000 && b.bodyBudget.capacity == 1000)
        #expect(a.bodyBudget.tryReserve(1000))
        #expect(b.bodyBudget.reserved == 0)
    }

    // MARK: The connection state machine

    func machine(_ budget: MemoryBudget, maxBody: Int = 1 << 20) -> HTTPConnection {
        var s = HTTPConnection.Settings()
        s.limits = HTTPParserLimits(maxBodySize: maxBody)
        s.bodyBudget = budget
        return HTTPConnection(settings: s, remoteAddress: "10.0.0.1", now: 0)
    }

    func receive(_ m: inout HTTPConnection, _ input: [UInt8]) -> HTTPConnection.Action {
        input.withUnsafeBytes { m.bytesReceived($0, now: 0) }
        return m.nextAction(now: 0)
    }

    func expect503(_ action: HTTPConnection.Action, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .sendError(let error) = action else {
            Issue.record("expected 503, got \(action)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.status == 503, sourceLocation: sourceLocation)
        #expect(error.retryAfter != nil, sourceLocation: sourceLocation)
    }

    static func upload(_ n: Int, expectContinue: Bool = false) -> [UInt8] {
        bytes("PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: \(n)\r\n" + (expectContinue ? "Expect: 100-continue\r\n" : "") + "\r\n")
    }

    @Test func aBodyIsHeldUntilItsResponseIsComplete() throws {
        let budget = MemoryBudget(capacity: 1000)
        var m = machine(budget)
        #expect(receive(&m, Self.upload(600)) == .waitForBytes)
        #expect(budget.reserved == 600)  // at the head, before any body byte
        guard case .respond(let request, _) = receive(&m, [UInt8](repeating: 1, count: 600)) else {
            Issue.record("no request")
            return
        }
        #expect(request.memoryBudget === budget)
        #expect(budget.reserved == 600)  // while the responder works
        _ = m.responseCompleted(keepAlive: true, now: 0)
        #expect(budget.reserved == 600)  // the request's, until the server is done with it
        request.bodyReservation?.release()
        #expect(budget.reserved == 0)
    }

    @Test func closingTheSocketKeepsABodyThatIsWithTheResponder() throws {
        let budget = MemoryBudget(capacity: 1000)
        var m = machine(budget)
        guard case .respond(let request, _) = receive(&m, Self.upload(600) + [UInt8](repeating: 1, count: 600)) else {
            Issue.record("no request")
            return
        }
        m.closed()  // the peer reset the connection while the responder works
        #expect(budget.reserved == 600)
        let reservation = try #require(request.bodyReservation)
        reservation.release()  // the server is done with the request
        #expect(budget.reserved == 0)
        reservation.release()  // exactly once
        #expect(budget.reserved == 0)
    }

    @Test func closingTheSocketGivesBackABodyStillBeingRead() {
        let budget = MemoryBudget(capacity: 1000)
        var m = machine(budget)
        #expect(receive(&m, Self.upload(600) + [1, 2, 3]) == .waitForBytes)
        #expect(budget.reserved == 600)
        m.closed()
        #expect(budget.reserved == 0)
    }

    @Test func anAnnouncedBodyThatDoesNotFitIsRefusedBeforeContinue() {
        let budget = MemoryBudget(capacity: 1000)
        var holder = machine(budget)
        #expect(receive(&holder, Self.upload(600)) == .waitForBytes)
        var m = machine(budget)
        expect503(receive(&m, Self.upload(500, expectContinue: true)))  // never .sendContinue
        #expect(budget.reserved == 600)
        #expect(m.mode == .finishing)
        #expect(m.parser.bufferedByteCount == 0)
        // The holder's connection closes: its reservation comes back, and the same upload fits.
        holder.closed()
        #expect(budget.reserved == 0)
        var again = machine(budget)
        #expect(receive(&again, Self.upload(500, expectContinue: true)) == .sendContinue)
        #expect(budget.reserved == 500)
    }

    @Test func aBodyLargerThanTheWholeBudgetIs413() {
        // Retrying could never help: 413, not 503.
        let budget = MemoryBudget(capacity: 1000)
        var m = machine(budget)
        guard case .sendError(let error) = receive(&m, Self.upload(1001, expectContinue: true)) else {
            Issue.record("not refused")
            return
        }
        #expect(error.status == 413)
        #expect(error.retryAfter == nil)
        #expect(budget.reserved == 0)
    }

    /// Sends 128 KiB of chunks; returns the status it was refused with, if any.
    func chunkedUpload(_ m: inout HTTPConnection, _ budget: MemoryBudget, held: Int) -> Int? {
        let head = bytes("PUT /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(receive(&m, head) == .waitForBytes)
        let chunk = bytes("2000\r\n") + [UInt8](repeating: 0x61, count: 0x2000) + bytes("\r\n")
        for _ in 0..<16 {
            let action = receive(&m, chunk)
            if action == .waitForBytes {
                #expect(budget.reserved <= budget.capacity)
                #expect(budget.reserved - held >= m.parser.bodyCapacity)
                continue
            }
            guard case .sendError(let error) = action else { return nil }
            #expect(budget.reserved == held)
            #expect(m.mode == .finishing)
            #expect(m.parser.bodyCapacity == 0)
            return error.status
        }
        return nil
    }

    @Test func aChunkedBodyIsCutOffWhenItOutgrowsWhatIsLeft() {
        let budget = MemoryBudget(capacity: 256 * 1024)
        #expect(budget.tryReserve(192 * 1024))  // other connections' bodies
        var m = machine(budget)
        #expect(chunkedUpload(&m, budget, held: 192 * 1024) == 503)
    }

    @Test func aChunkedBodyLargerThanTheWholeBudgetIs413() {
        let budget = MemoryBudget(capacity: 64 * 1024)
        var m = machine(budget)
        #expect(chunkedUpload(&m, budget, held: 0) == 413)
    }

    @Test func aChunkedBodyThatFitsIsHeldUntilItsResponse() {
        let budget = MemoryBudget(capacity: 64 * 1024)
        var m = machine(budget)
        let raw = bytes("PUT /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        guard case .respond(let request, _) = receive(&m, raw) else {
            Issue.record("no request")
            return
        }
        #expect(request.body == bytes("abc"))
        #expect(budget.reserved >= 3)
        _ = m.responseCompleted(keepAlive: true, now: 0)
        request.bodyReservation?.release()
        #expect(budget.reserved == 0)
    }

    @Test func errorsAndTimeoutsGiveTheReservationBack() {
        let budget = MemoryBudget(capacity: 1000)
        var m = machine(budget)
        #expect(receive(&m, Self.upload(600) + [1, 2, 3]) == .waitForBytes)
        #expect(budget.reserved == 600)
        guard case .sendError(let error) = m.checkTimeouts(now: 0 + .seconds(31)) else {
            Issue.record("no timeout")
            return
        }
        #expect(error.status == 408)
        #expect(budget.reserved == 0)
        #expect(m.parser.bodyCapacity == 0)
    }
}
