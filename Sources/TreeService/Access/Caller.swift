import TreeEngine

/// Who sent a request, as its credential says: the admin (a server token, or anyone on an
/// open server), or the holder of a session token.
enum Caller: Sendable, Equatable {
    case admin
    case token(AccessToken)

    /// The token's view, when it is bound to one.
    var boundView: ViewID? {
        if case .token(let token) = self { token.view } else { nil }
    }

    /// Whether the caller has `role` (the admin has every one).
    func has(_ role: AccessToken.Role) -> Bool {
        switch self {
        case .admin: true
        case .token(let token): token.role >= role
        }
    }

    /// 403 unless the caller has `role`; `action` says what needs it ("edit the tree").
    func require(_ role: AccessToken.Role, to action: String) throws(ServiceError) {
        guard case .token(let token) = self, token.role < role else { return }
        throw ServiceError(.forbidden, detail: "only the \(role.rawValue) role or above may \(action); this token grants \(token.role.rawValue)")
    }

    /// 403 unless the caller may read and change the state of the view named `vid` (nil: the
    /// session's default view): a token bound to a view may use that one only.
    func requireView(_ vid: String?) throws(ServiceError) {
        guard let bound = boundView, vid.flatMap(ViewID.init(text:)) != bound else { return }
        let named = vid.map { "view \($0)" } ?? "the session's default view"
        throw ServiceError(.forbidden, detail: "this token is bound to view \(bound.text) and may not use \(named): use /sessions/{sid}/views/\(bound.text)/…")
    }

    /// 403 for a token bound to a view: `action` ("make views") needs one that is not.
    func requireUnbound(to action: String) throws(ServiceError) {
        guard let bound = boundView else { return }
        throw ServiceError(.forbidden, detail: "a token bound to a view (this one is bound to \(bound.text)) may not \(action)")
    }
}

/// What a route needs of its caller (`Route.Template.rule(_:)`).
enum AccessRule: Equatable {
    /// Nothing: anyone, on any server.
    case open
    /// An admin token.
    case admin
    /// Any valid credential (a session token answers for its own session).
    case anyCredential
    /// A token of the route's session with this role or above, and for a bound token:
    case role(AccessToken.Role, view: ViewUse)

    /// What a route needs of a token bound to a view.
    enum ViewUse: Equatable {
        /// Nothing: the route reads or changes no view's state.
        case none
        /// That the route's view is the token's (the default view is no token's).
        case route
        /// That the token is not bound (it would act on other views).
        case unbound
    }
}

extension Route.Template {
    /// What a `method` request of this route needs (HEAD as GET). A role is the least the
    /// route needs: PATCH of the session or of an item, and batches, need more when their
    /// operations edit the tree or the session's settings (the handlers check it once they
    /// are decoded). The switch names every template, so a new route cannot go without a rule.
    func rule(_ method: String) -> AccessRule {
        switch self {
        case .root, .health, .openAPI, .client: return .open
        case .metrics: return .admin
        case .sessions: return method == "POST" ? .admin : .anyCredential
        case .session:
            return method == "DELETE" ? .role(.owner, view: .none) : .role(.reader, view: .none)
        case .tokens: return .role(.owner, view: .none)
        case .eventToken, .fields: return .role(.reader, view: .none)
        case .views: return method == "POST" ? .role(.reader, view: .unbound) : .role(.reader, view: .none)
        case .items, .viewItems: return .role(.editor, view: .route)
        case .item, .viewItem: return method == "DELETE" ? .role(.editor, view: .route) : .role(.reader, view: .route)
        case .view, .rows, .viewRows, .tree, .viewTree, .children, .itemChildren, .viewChildren, .viewItemChildren, .batch, .viewBatch,
             .events, .viewEvents, .matches, .viewMatches, .selection, .viewSelection, .expansion, .viewExpansion:
            return .role(.reader, view: .route)
        }
    }
}
