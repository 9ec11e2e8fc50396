import ArgumentParser
struct Demo: AsyncParsableCommand { func run() async throws {} }
