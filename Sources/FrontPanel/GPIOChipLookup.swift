import CGPIOD
import Glibc
import SystemSupport

/// Finds and opens the GPIO chip a board file names, by path, name or label, and says what exists when it is not
/// there: a householder with the wrong board file needs to see which chips the box does have.
///
/// Labels are matched by opening every `/dev/gpiochipN` in turn rather than with `gpiod_chip_open_by_label`, which
/// gives up at the first chip it cannot open (`gpiod_chip_iter_new`: "opens them and stores their handles", failing
/// as a whole) and so cannot tell "not there" from "not allowed".
struct GPIOChipLookup {
    /// The board file, named in every error.
    var source: String
    /// Where the chips' character devices are; tests point it at a folder of their own.
    var deviceDirectory = "/dev"

    /// Opens the chip; the caller owns the handle and closes it with `gpiod_chip_close`.
    func open(_ chip: String) throws(FrontPanelError) -> OpaquePointer {
        if chip.hasPrefix("/") { return try open(path: chip, missing: "no GPIO chip at \(chip)") }
        if Self.chipNumber(chip) != nil {
            // > gpiod_chip_open_by_name: "This routine appends name to '/dev/' to create the path."
            return try open(path: deviceDirectory + "/" + chip, missing: "no GPIO chip named \(chip)")
        }
        return try open(label: chip)
    }

    private func open(path: String, missing: String) throws(FrontPanelError) -> OpaquePointer {
        if let handle = gpiod_chip_open(path) { return handle }
        let code = errno
        switch code {
        case ENOENT:
            throw FrontPanelError(
                "\(missing) (board file \(source)); found: \(survey()); \(Self.hint)", kind: .chipNotFound)
        case EACCES, EPERM:
            throw FrontPanelError(permissionDenied([path]), kind: .permissionDenied)
        case ENOTTY, ENODEV:
            // > is_gpiochip_cdev (core.c): not a character device, or no /sys/bus/gpio/devices entry for it.
            throw FrontPanelError(
                "\(path) is not a GPIO chip (board file \(source)); found: \(survey()); \(Self.hint)",
                kind: .chipNotFound)
        default:
            throw FrontPanelError(
                "cannot open GPIO chip \(path): \(SystemError.text(code)) (board file \(source))",
                kind: .hardware)
        }
    }

    private func open(label: String) throws(FrontPanelError) -> OpaquePointer {
        var found: [String] = []
        var denied: [String] = []
        for name in chipNames() {
            let path = deviceDirectory + "/" + name
            guard let handle = gpiod_chip_open(path) else {
                let code = errno
                if code == EACCES || code == EPERM { denied.append(path) }
                found.append("\(name) (cannot open: \(SystemError.text(code)))")
                continue
            }
            let chipLabel = String(cString: gpiod_chip_label(handle))
            if chipLabel == label { return handle }
            found.append("\(name) [\(chipLabel)]")
            gpiod_chip_close(handle)
        }
        if !denied.isEmpty { throw FrontPanelError(permissionDenied(denied), kind: .permissionDenied) }
        let list = found.isEmpty ? "none" : found.joined(separator: ", ")
        throw FrontPanelError(
            "no GPIO chip labelled \"\(label)\" (board file \(source)); found: \(list); \(Self.hint)",
            kind: .chipNotFound)
    }

    static let hint = "gpiodetect lists the chips and their labels"

    /// What chips there are, for an error: `gpiochip0 [pinctrl-bcm2711], gpiochip1 [raspberrypi-exp-gpio]`.
    func survey() -> String {
        let found = chipNames().map { name in
            guard let handle = gpiod_chip_open(deviceDirectory + "/" + name) else {
                return "\(name) (cannot open: \(SystemError.text(errno)))"
            }
            defer { gpiod_chip_close(handle) }
            return "\(name) [\(String(cString: gpiod_chip_label(handle)))]"
        }
        return found.isEmpty ? "none" : found.joined(separator: ", ")
    }

    /// The `gpiochipN` entries of the device folder, by number.
    func chipNames() -> [String] {
        guard let directory = opendir(deviceDirectory) else { return [] }
        defer { closedir(directory) }
        var names: [(number: Int, name: String)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let number = Self.chipNumber(name) { names.append((number, name)) }
        }
        return names.sorted { $0.number < $1.number }.map(\.name)
    }

    /// N for `gpiochipN`; nil for anything else.
    static func chipNumber(_ name: String) -> Int? {
        guard name.hasPrefix("gpiochip") else { return nil }
        let digits = name.dropFirst("gpiochip".count)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    // MARK: - Permissions

    /// Raspberry Pi OS gives `/dev/gpiochip*` to group `gpio` (its udev rule in `99-com.rules`); plain Debian leaves
    /// them to root, so there a rule must do the same. The systemd unit adds the group with
    /// `SupplementaryGroups=gpio`.
    private func permissionDenied(_ paths: [String]) -> String {
        let user = Self.userName()
        var message =
            "permission denied on \(paths.joined(separator: ", ")) (board file \(source)): user \"\(user)\" must be "
            + "in the gpio group (sudo adduser \(user) gpio, then restart contactbox; the systemd unit does it with "
            + "SupplementaryGroups=gpio)"
        if let first = paths.first, let group = Self.groupName(of: first), group != "gpio" {
            message +=
                "; \(first) belongs to group \(group), so a udev rule must give the GPIO chips to group gpio "
                + "(SUBSYSTEM==\"gpio\", GROUP=\"gpio\", MODE=\"0660\")"
        }
        return message
    }

    private static func userName() -> String {
        let uid = geteuid()
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 1024)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return "uid \(uid)" }
        return String(cString: name)
    }

    private static func groupName(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 1024)
        guard getgrgid_r(info.st_gid, &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let name = entry.gr_name
        else { return "gid \(info.st_gid)" }
        return String(cString: name)
    }
}
