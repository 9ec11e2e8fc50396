@_exported import TimeSyncNTP
