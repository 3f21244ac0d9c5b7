import Foundation
import HTTP1
import Testing
@testable import TreeService

/// One list of problem types: the enum, and `openapi.yaml`'s list of slugs agree.
@Suite struct ProblemTypeTests {
    /// The repository's `openapi.yaml` (this file is `Tests/TreeServiceTests/…` inside it).
    static let openAPI: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("openapi.yaml")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// The slugs `openapi.yaml` lists under "The slugs:", each with the status after it:
    /// "`a`, `b` (400); `c` (401); …".
    static func documentedSlugs() -> [String: Int] {
        guard let start = openAPI.range(of: "The slugs:") else { return [:] }
        let paragraph = String(openAPI[start.upperBound...]).components(separatedBy: "\n\n")[0]
        var slugs: [String: Int] = [:]
        for entry in paragraph.split(separator: ";") {
            let parts = entry.components(separatedBy: "(")
            guard parts.count >= 2, let status = Int(parts[1].prefix(3)) else { continue }
            let names = parts[0].components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            for name in names { slugs[name] = status }
        }
        return slugs
    }

    @Test func openAPIListsEveryProblemTypeWithItsStatus() {
        let documented = Self.documentedSlugs()
        #expect(!documented.isEmpty, "no list of slugs found in openapi.yaml")
        for type in ProblemType.allCases {
            #expect(documented[type.rawValue] == type.status, "\(type.rawValue) (\(type.status)) in openapi.yaml: \(documented[type.rawValue].map(String.init) ?? "missing")")
        }
        let known = Set(ProblemType.allCases.map(\.rawValue))
        for slug in documented.keys { #expect(known.contains(slug), "openapi.yaml lists \(slug), which the service never answers") }
    }

    @Test func problemDocumentsCarryTheTypeStatusAndTitle() throws {
        let error = ServiceError(.versionMismatch, detail: "d")
        #expect(error.status == 412)
        let body = String(decoding: error.body, as: UTF8.self)
        #expect(body.contains("\"type\":\"urn:treesessions:problem:version-mismatch\""))
        #expect(body.contains("\"title\":\"Precondition Failed\""))
    }

    /// Every status the HTTP layer answers by itself (each parser error kind's, taken from
    /// HTTP1, so a new kind with a new status cannot silently become internal-error) has a
    /// type of its own, listed in `openapi.yaml`; 500 (a response it cannot serialize) is
    /// internal-error.
    @Test(arguments: HTTPParserError.allStatuses + [500])
    func httpLayerStatusesHaveTheirOwnType(status: Int) {
        let type = ProblemType(httpLayerStatus: status)
        #expect(type.status == status)
        #expect((type == .internalError) == (status == 500), "\(status) maps to \(type.rawValue)")
        #expect(Self.documentedSlugs()[type.rawValue] == status, "\(type.rawValue) (\(status)) missing from openapi.yaml")
        let body = String(decoding: Problem.httpErrorRenderer(status, "", "d").body, as: UTF8.self)
        #expect(body.contains("\"type\":\"\(type.uri)\""))
        #expect(body.contains("\"status\":\(status)"))
    }
}
