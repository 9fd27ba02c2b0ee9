/// Calendar arithmetic for HAR's ISO 8601 dates (UTC, proleptic Gregorian), without Foundation.
package enum HARDate {
    /// `2026-11-22T05:16:21.123Z`: milliseconds, truncated (not rounded) so that an entry never
    /// appears to start after its first packet.
    package static func iso8601(_ timestamp: Timestamp) -> String {
        var seconds = timestamp.nanoseconds / 1_000_000_000
        var nanos = timestamp.nanoseconds % 1_000_000_000
        if nanos < 0 {
            nanos += 1_000_000_000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
            + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2) + "." + pad(nanos / 1_000_000, 3) + "Z"
    }

    /// Parses an HTTP date as found in `Expires` cookie attributes: IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`), asctime
    /// (`Sun Nov  6 08:49:37 1994`) and the Netscape cookie form (`Sun, 06-Nov-1994 08:49:37 GMT`).
    package static func parseHTTPDate(_ text: String) -> Timestamp? {
        let tokens = text.split { $0 == " " || $0 == "," || $0 == "-" || $0 == "\t" }
        var day: Int64?, month: Int64?, year: Int64?, time: (Int64, Int64, Int64)?
        for token in tokens {
            let parts = token.split(separator: ":")
            if parts.count == 3, let h = Int64(parts[0]), let m = Int64(parts[1]), let s = Int64(parts[2]) {
                time = (h, m, s)
            } else if let number = Int64(token) {
                if token.count <= 2, day == nil {
                    day = number
                } else {
                    year = token.count == 2 ? (number < 70 ? 2000 + number : 1900 + number) : number
                }
            } else if let index = months.firstIndex(of: token.prefix(3).lowercased()) {
                month = Int64(index + 1)
            }
        }
        guard let day, let month, let year, let time, (1...31).contains(day), time.0 < 24, time.1 < 60, time.2 < 61
        else { return nil }
        let seconds = days(fromCivil: year, month, day) * 86_400 + time.0 * 3600 + time.1 * 60 + time.2
        return Timestamp(seconds: seconds, nanoseconds: 0)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Year, month, day of a day count since 1970-01-01 (H. Hinnant's algorithm).
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a civil date.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
