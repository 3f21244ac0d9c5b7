import Foundation
import Synchronization
import Testing
import TreeEngine
import TreeFormats
@testable import TreeService

/// Memory is given back after dropping something large, once per removal or sweep, and off
/// the thread of the request that dropped it.
@Suite struct FreedMemoryReturnTests {
    /// Records the threads trims ran on; `ran` is signalled after each.
    final class Recorder: Sendable {
        let threads = Mutex<[pthread_t]>([])
        let ran = DispatchSemaphore(value: 0)
        func trim() {
            threads.withLock { $0.append(pthread_self()) }
            ran.signal()
        }
    }

    /// A registry whose trim threshold is 40 nodes, with a settable clock.
    static func registry(_ recorder: Recorder, clock: TestClock = TestClock()) -> SessionRegistry {
        SessionRegistry(configuration: ServiceConfiguration(), clock: clock,
                        freedMemory: FreedMemoryReturn(minimumNodes: 40, trim: { recorder.trim() }))
    }

    /// A store of `nodes` roots.
    static func store(nodes: Int) throws -> TreeStore {
        let json = "[" + (0 ..< nodes).map { "{\"title\": \"n\($0)\"}" }.joined(separator: ",") + "]"
        let forest = try Array(json.utf8).withUnsafeBytes { raw in try Forest.parse(raw, limits: ForestLimits()).forest }
        return TreeStore(forest: forest)
    }

    @Test func droppingASmallSessionSchedulesNoTrim() throws {
        let registry = Self.registry(Recorder())
        let small = try registry.create(Self.store(nodes: 39))
        #expect(registry.remove(small.id, .deleted))
        #expect(registry.freedMemory.scheduled == 0)
        let large = try registry.create(Self.store(nodes: 40))
        #expect(registry.remove(large.id, .deleted))
        #expect(registry.freedMemory.scheduled == 1)
    }

    @Test func droppingALargeSessionTrimsOnAnotherThread() throws {
        let recorder = Recorder()
        let registry = Self.registry(recorder)
        let large = try registry.create(Self.store(nodes: 50))
        let caller = pthread_self()
        #expect(registry.remove(large.id, .deleted))
        #expect(recorder.ran.wait(timeout: .now() + 30) == .success)
        let thread = try #require(recorder.threads.withLock { $0.first })
        #expect(pthread_equal(thread, caller) == 0)
    }

    /// An import format's reader frees a second builder and its tables after a large upload:
    /// that is given back too (a small one is not worth it).
    @Test func aLargeImportTrimsAfterItsParse() throws {
        let harness = ServiceHarness()
        let freed = harness.service.registry.freedMemory
        let rows = { (count: Int) in "id,parentId,title\n" + (0 ..< count).map { "\($0),,n\($0)\n" }.joined() }
        #expect(harness.call("POST", "/sessions", json: rows(10), contentType: "text/csv").status == 201)
        #expect(freed.scheduled == 0)
        #expect(harness.call("POST", "/sessions", json: rows(freed.minimumNodes), contentType: "text/csv").status == 201)
        #expect(freed.scheduled == 1)
    }

    /// Five expired sessions of 20 nodes: none is large, together they are, and the sweep
    /// that drops them schedules one trim.
    @Test func aSweepTrimsOnceForAllItDropped() throws {
        let clock = TestClock()
        let registry = Self.registry(Recorder(), clock: clock)
        for _ in 0 ..< 5 { _ = try registry.create(Self.store(nodes: 20)) }
        clock.advance(ServiceConfiguration().sessionTTL + .seconds(11))
        registry.sweepIfDue()
        #expect(registry.count == 0)
        #expect(registry.nodeCount == 0)
        #expect(registry.freedMemory.scheduled == 1)
    }
}
