import Config
import Sync
import Testing

@testable import Remotes

@Suite("Opening and syncing a configured remote")
struct RemoteFactoryTests {
    @Test("every configured conflict policy maps to the engine's policy of the same name")
    func conflictPolicies() {
        for setting in RemoteSettings.ConflictPolicy.allCases {
            #expect(ConflictPolicy(setting).rawValue == setting.rawValue)
        }
    }
}
