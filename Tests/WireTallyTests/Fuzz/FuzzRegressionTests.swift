import Foundation
import Testing
@testable import WireTally

/// Inputs the fuzz targets (`Fuzz/`, `scripts/fuzz`) found crashing, fed through the same path as the
/// target that found them. Each input is kept gzip-compressed and base64-encoded (the capture readers
/// take gzip input as it is); the expectation is no trap and a conserved summary.
@Suite struct FuzzRegressionTests {
    /// Runs `analyze` on a capture given as base64 of its bytes, serializing every record.
    static func analyze(base64 lines: [String]) throws -> (CollectingWriter, AnalysisRun.Result) {
        let data = try #require(Data(base64Encoded: lines.joined()))
        let url = TestScratch.folder
            .appendingPathComponent("wiretally-fuzz-regression-\(UUID().uuidString).pcap.gz")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return CollectingWriter.analyze([url.path])
    }

    /// FuzzCapture: a pcapng whose interface has `if_tsresol` 2^-n and whose packets carry nonsense
    /// 64-bit timestamps far apart: the timing phases subtracted them and overflowed Int64 (trap in
    /// `ExchangeTimer.milliseconds`). Readers now clamp timestamps to `Timestamp.readableNanoseconds`.
    @Test func pcapngTimestampsFarApartDoNotOverflowDurations() throws {
        let (writer, result) = try Self.analyze(base64: Self.pcapngTimestampOverflow)
        #expect(result.summary.isConserved)
        #expect(writer.summary != nil)
    }

    @Test(arguments: [Int64(0), 1_700_000_000, Int64.max / 2, Int64.min / 2])
    func pcapngTimestampsAreClampedToTheReadableRange(offsetSeconds: Int64) {
        for resolution: PcapNGInterface.Resolution in [.decimal(exponent: 0), .decimal(exponent: 9), .binary(exponent: 3)] {
            let interface = PcapNGInterface(linkType: .ethernet, snaplen: 0, resolution: resolution, offsetSeconds: offsetSeconds)
            for units: UInt64 in [0, 1, 1_700_000_000, UInt64(Int64.max), UInt64.max] {
                #expect(Timestamp.readableNanoseconds.contains(interface.timestamp(units: units).nanoseconds))
            }
        }
    }

    /// Fuzz/Crashes/FuzzCapture-crash-b9dfff0574b40ec71f85bf2e15eee8d03426ae18, gzip -9, base64.
    static let pcapngTimestampOverflow = [
        "H4sIAAAAAAACA+1ZDVAU1x3f5Wthk0tbB6tjc7hqk6By3N0eoF5OQPS4AwSPSOpMYysnt8DJeUe4PblDhNVpqm1sr2ZsOqnxI5IP",
        "JJoz0Yy2kcBMdWJnDFg+oh0dQA05v8FivRAQ+t4ex329u07UttPam9nbt//39v329/+9/f/f20cKBKQBw7B8xfwZODiPT/yiMCWm",
        "1OnZEm0llbhKX8WYy7VVFXOplGRJsnQBlajSs9SGiYtKbUmFtozRUVrzRL1IMl/HrJXSFtlczP2DGLD/+IkzhkXx5ZiJOvg7VxyD",
        "rYrpj88FZXhEVMM//h+PBc+DKYrfz8QyY06xZD6GgyPiZhKmeYMTtcG790V8MzhSA26Iij4aFRFLjl7fng7teGQk6cYIxNoUiIW7",
        "Ed1YGAaxnqUgDsTDNDeTmoozNwO89n1Txrb9WeLFevXasW6I54+l88H6FcDKAuUsFK+U4oM8r40BvNoB3hbuu1jGvRzQFHdzglju",
        "viHGedyLEU/0xx8H1/AIxMCbig9BjJNRSIzpWMa0i/4YKmURJdYbdYw1uZxdb6DURUUasTRZKiDVJjMrp6SS5AULgNq0gHzRzFSJ",
        "lpQxRmCuZkVV2moxaCYg+S7M67UGQzJrZR+kB7VyybJH8hRGU4nJyIK6B+6BZazsg9FYUlLCVLIipbHEpNMby+RUWY2+UkAuNRmN",
        "TAmrNxnlVInBZGYgFNQzcOxQRMDY8R2nKd3vQV01XMA43fIGJ1aCsZN5t8Otq2eMesdObbQXowxgvASu4RGIEZ3f3Qgx8kqRGNOx",
        "TMsdfwyPiyhaIqFW5AnIlUzVBqZKThnL9EYrqKFp6L9lWpaRUystxiSKpqkC0wbQnk6jJKnyVFpOp1Kq/CLeTVA3UZGtEjSGKojh",
        "SPBWLGeMZWw51CFFJiCXa82sKB84ulTP6ORUkYVJoqQpns5lAEgulclpyWTnkxpUMEylSGvQbwBC/EhbZZNTAcIJSGWRFsg3Oy01",
        "VVYqlUhEKVLZ7El9X9AayxiznFprYxkz1FIxS2cqYcFjU/CB00kFf1KUM1pduoLVswYmvRpEVha8HzZAzMyCSFrGKMTuKoWYb0gq",
        "1pp0NnizNF3NGAwmqrTKtJ6avBE0k4JaC+zfoJ9oomeZ9ZREIQaGQKsUaaWRVhnSmoK0piKtaUjrAqR1IdK6CM0iBDk0OymanhTN",
        "T4omKEUzlKIpStEcpWiSUjRLGs2SDqEhmiWNZkmjWdJoljSaJY1mSaNZ0miWMjRLGZqlLMRQRbOUoVnK0CxlaJYyNEsZmqXMw1LM",
        "v5Ni/vVViN0hgI+5gfG9ggg7N/iAnxvY/PO2WNlUrNwF4nvWwLFQc4NKn7mBHWBowLUGD47veFb3AYixotI/vit3eeL7Oy//W+N7",
        "pUGrNwYF+KUwR+pe0D6C8B4Yx2lpmDDO6o02/rmSqLWMwVTNp+816/XGNQb+wchKRM5+LbymDl5Ta7Cm2QeApsrb74bStNxH0waA",
        "oQbXapSm8u4mXtNqf02zD3g0vfvu/3N2sNjlCC3fCa/lYV7L6mAtVQ6gperWnlBanvXB+CPAOAzKh1FzvP3d/LpH85S/liqHR8s5",
        "dSG1hG6kJtz+sJq63f7LU707fdwuIM8i1jsnwvvsQ95nG4J9phbyPpOE8tmTMV6MZ2P746+DeHodNWe92M2vqXI7/X2mFnrmxTuL",
        "/xMx7dsN9aIqrdFcCtYU3rVDSbnFWMHokMuHsG/AKrH3HWAYLT3b+5iBKxMBuai0REDOfDXWvVKPPPTXzz9MzLa88pc/NBzHjzde",
        "2FRninkqM+70V/hHzOKkH0iWfefk2YoT79+7uuvQzLHBW1fqx+521o+e+6xl/Jv74pba0dsj4/Wjzr1jI/bxkTv323vr7n/dUn8m",
        "Y/zrYy11o/dGBuqH7ph668aGRz6zt4zfeW/N2N+vOPfWDd+7M7yrfvjSrUuKjIvOrda6086tNXVXnVttdeedWx3OrZH7ax1/O1Fm",
        "6/lEMaDd46LbN/7e2fz5UILT5hj69Jyt98aJAUuPSz6wcberuW3kp85NE+btLvmV5jarQ9YTXKx1yHpvnHHJh4KLB13yG81tNY4j",
        "PcHFOseR3hs3XfKR4OKbLrmzuc3mMPcEFzc5zL03LrrkruDiaI1jCHTscMlbepAXQ8N7nMO1A0O1nxI16b1PLN478Is97a7sdufG",
        "t51DzR2g+tpw1O4paRG7yYVTqn54VX1+R+uct1Rb7NxMIaYmYjvwn7HcLCGnJhI78O0sN0eI5RDqDnwnyz0j5HKI8g78TZZ7Tojl",
        "Ets68LdZbq6QyyUaO/CDLDdfiOURpzvwoywnEnJ5xNUO/ATLiYXYciK2Ez/JclIht5xI7MTPsJxMiOUT6k68i+VShVw+Ud6JX2S5",
        "BUKsgNjWiX/JcouEXAHR2InfZLnnhdgK4nQnfpflFgu5FcTVTnyU5TKEmIaI7cKjLNwSIachErvwJy3cUiFWSKi78HgLpxRyhUR5",
        "F/60hVP9pK9wmrUrOsGyGVls/+SftfgfLEYPNmIJU1sbIqxFmJ3sK8QV87j/VqM7BwTmm7mxYfPNR3y+sQTnm/xTIBfkOl8JmaN9",
        "vpHMAxgOcO1A5Zu3uvnvayBv+OWb/FOeHL10ln++eQg3RNhz+wrjFPM2q54ZbIxK+G1rw5TH0Dh1sDEi4cXWBtJahNvn9RVGK5q4",
        "hzJOBdZH3ee/3hhpX9dXKFA0bValDjbGJHS3Nsx4DI2CwUY8IbW1Icbahdln9BVGKtZxj6Exwv7jvsInFOs2q0SDjdEJH7c2fP+x",
        "M45fK6wnPk7e+MX+2xgmICVwPsvH8cCcIQqfM46g9ppgzlhJg5yRd3laqJzhi5EWG/bbPf9tR2PzzxkraT5nfA/LvDwr1Ld7Xwxj",
        "XFgeR3keZgQPGcDIuxw/ySMjNA8uLiwP/nuGxhrAQwZwsuFa63LCJI8vII4Xw2c/rvBCXLi9P3sfxHg9Y5JHGqZ5aUcK7dn7W/uy",
        "dz/Ouapqdfi9P2fct9z7S7OMCcoBngzu/X3Q78XKyrq+COKF3vu7FVYf+yWeV3YALxnA08O9vwtjbt9BDIiF9B0WT/bH54ByDgrj",
        "eftlHiMdiTEdy2ig/DEm9v4wNJ+nyXBjoec3EEv1uwDf6QGeHI6FC/fcWB6/+Xyv9MF4rq0/vgCUC1B8Mu1XeD4LA/jIPXyO7pvk",
        "82uI47t96MYJ5JTbFpbTDp7T6whO/Pi+8PNJThUQ02ePzQdj/2tfxcNhuRrFqcD+Jc9pbgCnbA+nu6snObVCnNB7kLUIfn8C2Ch+",
        "/wDTmB8kACAAAA==",
    ]
}
