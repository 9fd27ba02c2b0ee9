import ArgumentParser

/// `--app NAME`: keep one process's or app's traffic, for captures that name them.
struct AppFilterArgument: ParsableArguments {
    @Option(name: .customLong("app"), help: ArgumentHelp("""
        Keep only the packets the capture says belong to this process or app (PKTAP and Apple pcapng: \
        process or effective process name; PCAPdroid: app name); the rest are counted as filtered, as \
        with -f.
        """, valueName: "name"))
    var name: String?
}
