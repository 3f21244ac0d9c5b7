import HTTP1

/// The TypeScript client's compiled modules (`clients/typescript/dist/*.js`), served at
/// `/client/{file}`: the demo page imports its row cache from `/client/index.js`, and any page
/// may do the same. They are compiled into the binary like the demo's other files: each is
/// linked from `Demo/client/` to the repository's `dist/` and listed in Package.swift.
enum ClientModule {
    /// The modules by file name.
    static let files: [String: [UInt8]] = [
        "adapters.js": PackageResources.adapters_js,
        "api.js": PackageResources.api_js,
        "index.js": PackageResources.index_js,
        "problem.js": PackageResources.problem_js,
        "row-store.js": PackageResources.row_store_js,
        "splices.js": PackageResources.splices_js,
        "sse.js": PackageResources.sse_js,
        "transport.js": PackageResources.transport_js,
        "tree-rows.js": PackageResources.tree_rows_js,
    ]

    static func response(_ file: String) throws(ServiceError) -> HTTPResponse {
        guard let body = files[file] else {
            throw ServiceError.notFound("no client module \(file); the modules are \(files.keys.sorted().joined(separator: ", "))")
        }
        return HTTPResponse(status: 200, contentType: "text/javascript; charset=utf-8", body: body)
    }
}
