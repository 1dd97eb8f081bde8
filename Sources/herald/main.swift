import FoundationEssentials
import HeraldServer

#if canImport(Glibc)
    import Glibc
#endif

let status = await HeraldCLI().run(Array(CommandLine.arguments.dropFirst()))
exit(status)
