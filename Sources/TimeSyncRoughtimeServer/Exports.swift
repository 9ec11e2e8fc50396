@_exported import TimeSyncNTPServer
