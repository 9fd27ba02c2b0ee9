/// A finished unit of analysis handed to the output: emitted as soon as it is complete, so output
/// streams while a capture is read.
public enum AnalysisRecord {
    case connection(TCPConnection)
    case flow(IPFlow)
}
