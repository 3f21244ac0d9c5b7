/// Test data kept in this target's `Resources/` folder and compiled into the tests
/// (`.embedInCode`), so no test reads a file at run time, inside the checkout or outside it.
enum TestData {
    /// The outline sample (`Resources/outline-small.json`): 38 nodes under 5 roots, with
    /// ids such as "1", "1.2", "1.2.4.2", as uploaded in the README's curl session.
    static var outlineSample: [UInt8] { PackageResources.outline_small_json }
}
