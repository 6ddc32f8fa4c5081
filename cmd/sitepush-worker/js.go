//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"syscall/js"
)

// promise returns a JS Promise settled by f, which runs on a goroutine of its own: a handler
// called by JS must return at once, and may not block. A panic in f rejects the promise rather
// than stopping the program, which serves the isolate's next events.
func promise(f func() (js.Value, error)) js.Value {
	executor := js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject := args[0], args[1]
		go func() {
			v, err := safely(f)
			if err != nil {
				e := js.Global().Get("Error").New(err.Error())
				e.Set("stack", "Error: "+err.Error()) // the stack through Go's runtime tells nothing
				reject.Invoke(e)
				return
			}
			resolve.Invoke(v)
		}()
		return nil
	})
	defer executor.Release() // the Promise calls its executor before New returns
	return js.Global().Get("Promise").New(executor)
}

func safely(f func() (js.Value, error)) (v js.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = js.Undefined(), fmt.Errorf("sitepush: %v", p)
		}
	}()
	return f()
}

// await waits for a JS Promise: its value, or its rejection as an error.
func await(p js.Value) (js.Value, error) {
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{v: arg(args)}
		return nil
	})
	defer then.Release()
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{err: jsError(arg(args))}
		return nil
	})
	defer catch.Release()
	p.Call("then", then, catch)
	s := <-ch
	return s.v, s.err
}

func arg(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// call calls a method that returns a Promise and waits for it; a method that throws at once is
// an error too.
func call(v js.Value, method string, args ...any) (result js.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			if e, ok := p.(js.Error); ok {
				err = jsError(e.Value)
				return
			}
			panic(p)
		}
	}()
	return await(v.Call(method, args...))
}

// jsError is a thrown JS value as a Go error: an Error's message, or the value as a string.
func jsError(v js.Value) error {
	if v.Type() == js.TypeObject {
		if msg := v.Get("message"); msg.Type() == js.TypeString {
			return errors.New(msg.String())
		}
	}
	return errors.New(v.String())
}

// bytesOf copies a JS ArrayBuffer or typed array into Go.
func bytesOf(v js.Value) []byte {
	u8 := js.Global().Get("Uint8Array").New(v)
	b := make([]byte, u8.Get("length").Int())
	js.CopyBytesToGo(b, u8)
	return b
}

// toJSBytes copies b into a new Uint8Array.
func toJSBytes(b []byte) js.Value {
	u8 := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(u8, b)
	return u8
}
