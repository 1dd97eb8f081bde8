import Foundation
import HeraldServer

let status = await HeraldCLI().run(Array(CommandLine.arguments.dropFirst()))
exit(status)
