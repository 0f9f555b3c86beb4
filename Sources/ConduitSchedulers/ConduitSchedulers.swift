// `import ConduitSchedulers` brings Conduit with it, so a file that wants the additions needs one
// import.
@_exported import Conduit
